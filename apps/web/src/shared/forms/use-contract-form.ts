// The one way the web app makes a form: a request schema of packages/contract bound to
// react-hook-form through zodResolver. The messages under the fields ('Email is required',
// 'Password is too short', 'Passwords do not match') are then the contract's, the same words the
// API answers with, written once.
import { zodResolver } from '@hookform/resolvers/zod';
import {
  type DefaultValues,
  type FieldPath,
  type FieldValues,
  useForm,
  type UseFormRegisterReturn,
} from 'react-hook-form';
import type { z } from 'zod';

/** What a labelled input of shared/ui needs: react-hook-form's binding and the field's message. */
export type FieldBinding = UseFormRegisterReturn & { error: string | undefined };

export function useContractForm<Schema extends z.ZodType<FieldValues, FieldValues>>(
  schema: Schema,
  defaultValues: DefaultValues<z.input<Schema>>,
) {
  type Values = z.input<Schema>;
  const form = useForm<Values, unknown, z.output<Schema>>({
    resolver: zodResolver(schema),
    defaultValues,
  });

  /** `<EmailInput label="Email" {...field('email')} />`: bound, with its message under it. */
  function field(name: FieldPath<Values>): FieldBinding {
    return {
      ...form.register(name),
      error: form.getFieldState(name, form.formState).error?.message,
    };
  }

  return { form, field };
}
