// A form's contract schema, imported when the visitor first touches the page rather than with
// the page's first JavaScript. Building zod's schemas was the largest single task of
// /auth/login's start (about 200 ms at a 4 x slower CPU, profiled; issue 30), and a form needs
// its schema only to check what was typed, which nobody does before they touch it. useContractForm takes either kind: the member area's and the desk's
// forms, drawn by an app that has zod already, keep handing it the schema itself.
import { zodResolver } from '@hookform/resolvers/zod';
import type { FieldErrors, FieldValues, Resolver } from 'react-hook-form';
import type * as z from 'zod/v4/core';

import { useCommonText } from '../i18n/common-text';
import { toasts } from '../ui/toasts';

/** The events that come before anyone can fill in or send a form: the schema is fetched then. */
const FIRST_TOUCH_EVENTS = ['pointerdown', 'pointermove', 'touchstart', 'keydown', 'focusin'];

const SCHEMA_NOT_LOADED_TOAST = 'form-schema-not-loaded';

export class LazySchema<Schema extends z.$ZodType<FieldValues, FieldValues>> {
  #loading: Promise<Schema> | undefined;
  #loaded: Schema | undefined;

  /** `importSchema` is a dynamic import, so that the bundler leaves the schema's module out. */
  readonly #importSchema: () => Promise<Schema>;

  constructor(importSchema: () => Promise<Schema>) {
    this.#importSchema = importSchema;
  }

  /** The schema, imported on first call; every later call answers the same promise. */
  load(): Promise<Schema> {
    this.#loading ??= this.#importSchema().then(
      (schema) => (this.#loaded = schema),
      (error: unknown) => {
        // A failed download (a deploy replaced the file, the network dropped) is asked for again
        // on the next call rather than remembered here. Today's browsers remember a module that
        // failed and refuse it again at once (whatwg/html#10327 lets them retry), so what
        // usually helps is a reload, which loadForCheck's toast asks for.
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }

  /** The schema if it has arrived: for a check that must happen within a click (a new tab). */
  loaded(): Schema | undefined {
    return this.#loaded;
  }

  /**
   * The schema for a check about to be made; undefined when its file did not arrive (the
   * connection dropped, or a deploy replaced it), and then a toast says so and asks for a reload:
   * one toast, however many checks fail meanwhile (a form checks again on every change once sent).
   */
  async loadForCheck(): Promise<Schema | undefined> {
    try {
      return await this.load();
    } catch {
      toasts.error(useCommonText.now('pageNotLoadedText'), { id: SCHEMA_NOT_LOADED_TOAST });
      return undefined;
    }
  }

  /** zod's resolver for the form, once the schema has arrived; what a check waits for. */
  resolver(): Resolver<z.input<Schema>, unknown, z.output<Schema>> {
    return async (values, context, options) => {
      const schema = await this.loadForCheck();
      if (schema) return zodResolver(schema)(values, context, options);
      // Nothing is sent and what was typed stays: an error on the form itself, under no field,
      // keeps react-hook-form from sending.
      const unchecked = { root: { type: 'schemaNotLoaded' } } as FieldErrors<z.input<Schema>>;
      return { values: {}, errors: unchecked };
    };
  }

  /**
   * Imports the schema on the page's first pointer, touch, key or focus, the moment someone
   * starts to use it, and answers a function that stops listening. Before the app runs, a
   * visitor may already have typed into a drawn field: then at once.
   */
  loadOnFirstTouch(): () => void {
    if (this.#loaded !== undefined) return () => undefined;
    const typedBeforeApp = document.activeElement instanceof HTMLInputElement;
    if (typedBeforeApp) {
      void this.load().catch(() => undefined);
      return () => undefined;
    }
    const controller = new AbortController();
    const onFirstTouch = (): void => {
      controller.abort();
      // Quietly: a submit that needs the schema asks for it again and says what went wrong.
      void this.load().catch(() => undefined);
    };
    for (const type of FIRST_TOUCH_EVENTS) {
      document.addEventListener(type, onFirstTouch, {
        capture: true,
        passive: true,
        signal: controller.signal,
      });
    }
    return () => controller.abort();
  }
}
