// A form whose schema is imported on the visitor's first touch (lazy-schema.ts): nothing is
// imported before someone touches the page, a check that comes first waits for it, and a schema
// whose file did not arrive sends nothing, says so, and is fetched again on the next try.
import { LoginRequestSchema } from '@kegel/contract';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { findToast } from '../../testing/render-app';
import { ToastRegion } from '../ui/toast-region';
import { EmailInput } from '../ui/text-input';
import { LazySchema } from './lazy-schema';
import { useContractForm } from './use-contract-form';

type LoginSchema = typeof LoginRequestSchema;

function SignInForm({
  schema,
  onValid,
}: {
  schema: LazySchema<LoginSchema>;
  onValid: (values: unknown) => void;
}): React.JSX.Element {
  const { form, field } = useContractForm(schema, { email: '', password: 'secret secret' });
  return (
    <form onSubmit={form.handleSubmit(onValid)} noValidate>
      <EmailInput label="Email" {...field('email')} />
      <button type="submit">Sign In</button>
    </form>
  );
}

function renderForm(schema: LazySchema<LoginSchema>) {
  const onValid = vi.fn();
  const user = userEvent.setup();
  render(
    <>
      <SignInForm schema={schema} onValid={onValid} />
      <ToastRegion />
    </>,
  );
  return { user, onValid, email: screen.getByRole('textbox', { name: 'Email' }) };
}

const NOT_LOADED =
  'Your connection may have dropped, or the app has just been updated. Reload the page to try again.';

/** What a browser throws when a module's file could not be fetched. */
const FAILED_IMPORT = new TypeError('Failed to fetch dynamically imported module');

describe('a form whose schema arrives on first touch', () => {
  it('imports nothing until the page is touched, then once', async () => {
    const importSchema = vi.fn(() => Promise.resolve(LoginRequestSchema));
    const { user, email } = renderForm(new LazySchema(importSchema));
    expect(importSchema).not.toHaveBeenCalled();

    await user.type(email, 'alex@example.com');
    expect(importSchema).toHaveBeenCalledTimes(1);
  });

  it('shows one toast however many checks fail: a sent form checks again on every change', async () => {
    const importSchema = vi.fn(() => Promise.reject(FAILED_IMPORT));
    const { user, email } = renderForm(new LazySchema(importSchema));

    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await findToast(NOT_LOADED)).toBeVisible();
    await user.type(email, 'alex');
    // Each change was checked again (react-hook-form, once a form was sent), each failing.
    expect(importSchema.mock.calls.length).toBeGreaterThanOrEqual(4);
    expect(screen.getAllByText(NOT_LOADED)).toHaveLength(1);
  });

  it('checks a send that came before the schema once it arrives, and sends nothing invalid', async () => {
    let arrive: (schema: LoginSchema) => void = () => undefined;
    const schema = new LazySchema(() => new Promise<LoginSchema>((resolve) => (arrive = resolve)));
    const { user, email, onValid } = renderForm(schema);

    // The click is the page's first touch: the check waits for the schema.
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(email).not.toHaveAccessibleDescription();
    arrive(LoginRequestSchema);
    await waitFor(() => expect(email).toHaveAccessibleDescription('Email is required'));
    expect(onValid).not.toHaveBeenCalled();
    expect(schema.loaded()).toBe(LoginRequestSchema);
  });

  it('stops listening when the form goes: a touch afterwards imports nothing', async () => {
    const importSchema = vi.fn(() => Promise.resolve(LoginRequestSchema));
    const onValid = vi.fn();
    const user = userEvent.setup();
    const { unmount } = render(
      <SignInForm schema={new LazySchema(importSchema)} onValid={onValid} />,
    );
    unmount();
    await user.keyboard('a');
    await user.click(document.body);
    expect(importSchema).not.toHaveBeenCalled();
  });

  it('asks for a reload once when the schema does not arrive, keeps what was typed, and tries again', async () => {
    const importSchema = vi
      .fn<() => Promise<LoginSchema>>()
      // Typing (the first touch) and the first send both find the connection down.
      .mockRejectedValueOnce(FAILED_IMPORT)
      .mockRejectedValueOnce(FAILED_IMPORT)
      .mockResolvedValue(LoginRequestSchema);
    const { user, email, onValid } = renderForm(new LazySchema(importSchema));

    await user.type(email, 'alex@example.com');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await findToast(NOT_LOADED)).toBeVisible();
    expect(onValid).not.toHaveBeenCalled();
    expect(email).toHaveValue('alex@example.com');
    expect(email).not.toHaveAccessibleDescription();

    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(onValid).toHaveBeenCalledTimes(1));
    expect(onValid.mock.calls[0]?.[0]).toEqual({
      email: 'alex@example.com',
      password: 'secret secret',
    });
    expect(importSchema).toHaveBeenCalledTimes(3);
  });
});
