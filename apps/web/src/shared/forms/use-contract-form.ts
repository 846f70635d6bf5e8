// The one way the web app makes a form: a request schema of packages/contract bound to
// react-hook-form through zodResolver. The messages under the fields ('Email is required',
// 'Password is too short', 'Passwords do not match') are then the contract's, the same words the
// API answers with, written once.
//
// Some refusals only the server can make ('This password is too common…': the list stays on the
// server). A form names those contract messages per field (`serverMessages`) and hands
// `showOnField` to its write (the mutation's meta): a 400 with one of them then appears under
// that field, focused, instead of in a toast, and goes when the field is edited.
//
// A 400 of the contract's validation names the field of each of its messages (the error's
// `fields`, spelled as the request spells them): each one the form has goes under it the same
// way, with no list to keep. Only when every message found its field does no toast follow.
//
// The contract's messages are English; a field shows its message in the page's language
// (localizeMessage, the catalogs' `messages` namespace, loaded with every form). The server's
// arrive in that language already, and localizeMessage leaves them as they are.
//
// The pages drawn before the app (sign-in, registration, checkout) hand it a LazySchema instead of
// the schema: zod then arrives when the visitor first touches the page, and a check that comes
// sooner waits for it (lazy-schema.ts).
import { zodResolver } from '@hookform/resolvers/zod';
import {
  type DefaultValues,
  type FieldPath,
  type FieldValues,
  type PathValue,
  useForm,
  type UseFormRegisterReturn,
} from 'react-hook-form';
import { useEffect, useMemo, useState } from 'react';
import type * as z from 'zod/v4/core';

import { ApiError } from '../http/api-client';
import '../i18n/contract-messages';
import { localizeMessage } from '../i18n/i18n';
import type { LazySchema } from './lazy-schema';

/** What a labelled input of shared/ui needs: react-hook-form's binding and the field's message. */
export type FieldBinding = UseFormRegisterReturn & { error: string | undefined };

export interface ContractFormOptions<Values extends FieldValues> {
  /** The server's 400 messages that belong under a field: `{ password: [fieldMessages.…] }`. */
  serverMessages?: Partial<Record<FieldPath<Values>, readonly string[]>>;
}

export function useContractForm<Schema extends z.$ZodType<FieldValues, FieldValues>>(
  schema: Schema | LazySchema<Schema>,
  defaultValues: DefaultValues<z.input<Schema>>,
  options: ContractFormOptions<z.input<Schema>> = {},
) {
  type Values = z.input<Schema>;
  // Kept across draws for the same schema. The LazySchema brings its own resolver, so that a page
  // whose forms have their schema at hand does not carry the lazy one's code.
  const resolver = useMemo(
    () => (isLazy(schema) ? schema.resolver() : zodResolver(schema)),
    [schema],
  );
  const form = useForm<Values, unknown, z.output<Schema>>({ resolver, defaultValues });
  const [fieldRefs] = useState(() => new Map<string, FieldBinding['ref']>());

  useEffect(() => (isLazy(schema) ? schema.loadOnFirstTouch() : undefined), [schema]);

  /** `<EmailInput label="Email" {...field('email')} />`: bound, with its message under it. */
  function field(name: FieldPath<Values>): FieldBinding {
    return {
      ...form.register(name),
      ref: fieldRefOf(name),
      error: localizeField(form.getFieldState(name, form.formState).error?.message),
    };
  }

  /**
   * The same ref callback for a field on every render: a new one each time would make React
   * detach and attach it again in every commit, and react-hook-form register the element anew
   * (a few milliseconds of each commit of a form at a phone's speed, issue 30).
   */
  function fieldRefOf(name: FieldPath<Values>): FieldBinding['ref'] {
    const known = fieldRefs.get(name);
    if (known) return known;
    const ref = (element: HTMLInputElement | null) => {
      // On a prerendered page the field is there before the app: what the visitor typed or his
      // browser filled in meanwhile is kept when the form takes the field over (registering
      // writes the default value into it). Boxes are left alone: their value is not what is
      // ticked, and no prerendered page has one.
      const isBox = element?.type === 'checkbox' || element?.type === 'radio';
      const typedBeforeApp = isBox ? undefined : element?.value;
      form.register(name).ref(element);
      if (typedBeforeApp && typedBeforeApp !== form.getValues(name)) {
        form.setValue(name, typedBeforeApp as PathValue<Values, FieldPath<Values>>, {
          shouldDirty: true,
        });
      }
    };
    fieldRefs.set(name, ref);
    return ref;
  }

  /** Whether the form has a field at the server's dotted `path` (`newPassword`, `device.name`). */
  function hasField(path: string): boolean {
    // Its defaults and every field it has registered since.
    let value: unknown = form.getValues();
    for (const key of path.split('.')) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return false;
      value = (value as Record<string, unknown>)[key];
    }
    return true;
  }

  /**
   * For the write's meta (`useRegister({ showOnField })`): puts a 400 whose message is one of
   * `serverMessages`, or whose `fields` name the form's fields, under its field and says so, so
   * that no toast repeats it. A 401 too: a sign-in's wrong code is one (it counts like a wrong
   * password).
   */
  function showOnField(error: Error): boolean {
    if (!(error instanceof ApiError) || (error.statusCode !== 400 && error.statusCode !== 401)) {
      return false;
    }
    if (error.fields.length > 0) return showFieldProblems(error.fields);
    const byField = Object.entries(options.serverMessages ?? {}) as Array<
      [FieldPath<Values>, readonly string[] | undefined]
    >;
    // The server words them in the page's language (or in English, if it has no translation).
    const name = byField.find(([, messages]) =>
      messages?.some((message) => [message, localizeMessage(message)].includes(error.message)),
    )?.[0];
    if (name === undefined) return false;
    form.setError(name, { type: 'server', message: error.message }, { shouldFocus: true });
    return true;
  }

  /** Each problem under its field, the first focused; true when every one found its field. */
  function showFieldProblems(problems: ApiError['fields']): boolean {
    const placed = problems.filter(({ field }) => hasField(field));
    placed.forEach(({ field, message }, index) => {
      form.setError(
        field as FieldPath<Values>,
        { type: 'server', message },
        { shouldFocus: index === 0 },
      );
    });
    return placed.length === problems.length;
  }

  return { form, field, showOnField };
}

/** Told by shape, not `instanceof`: that would bring LazySchema's code to every form's page. */
function isLazy<Schema extends z.$ZodType<FieldValues, FieldValues>>(
  schema: Schema | LazySchema<Schema>,
): schema is LazySchema<Schema> {
  return typeof (schema as Partial<LazySchema<Schema>>).loadOnFirstTouch === 'function';
}

function localizeField(message: string | undefined): string | undefined {
  return message === undefined ? undefined : localizeMessage(message);
}
