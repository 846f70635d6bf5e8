import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useMemo, useRef } from 'react';
import { useWatch } from 'react-hook-form';

import { externalLinks } from '../../../config/paths';
import { openPendingTab } from '../../../shared/browser/pending-tab';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { RichText } from '../../../shared/i18n/rich-text';
import { useProfile } from '../../../shared/session/session';
import { Button } from '../../../shared/ui/button';
import { LockIcon, StripeIcon } from '../../../shared/ui/icons/icon-set';
import { EmailInput } from '../../../shared/ui/text-input';
import { purchaseQueries, useStartCheckout } from '../api';
import { checkoutFormSchema } from '../form-schemas';
import { OrderSummary } from '../components/order-summary';
import { PlanCard, PlanCardSkeleton } from '../components/plan-card';
import styles from '../components/purchase.module.css';
import { largestPlan } from '../plan-terms';
import { usePurchaseText } from '../text';

/**
 * `/purchase`: choose a plan, give an email, pay on Stripe's hosted checkout in a new tab. Open
 * to visitors: a new email gets its account when the payment completes.
 */
export function PurchasePage(): React.JSX.Element {
  const text = usePurchaseText();
  const plans = useQuery(purchaseQueries.plans());
  const { data: profile } = useProfile();
  const checkout = useStartCheckout();
  const { form, field } = useContractForm(checkoutFormSchema, { planId: '', email: '' });
  // The plan is a radio group, not one labelled input: its message is placed by hand below.
  const planError = form.getFieldState('planId', form.formState).error?.message;
  const selectedPlanId = useWatch({ control: form.control, name: 'planId' });
  // One registration for every card, kept across draws: the cards are memoised, so preselecting a
  // plan (an effect, once the plans arrive) draws the summary again but not the cards (issue 30).
  const planInputProps = useMemo(() => form.register('planId'), [form]);
  const mostPopular = plans.data ? largestPlan(plans.data) : undefined;
  const selectedPlan = plans.data?.find((plan) => plan.id === selectedPlanId);

  // The plan with the most days is preselected.
  useEffect(() => {
    if (mostPopular && !form.getValues('planId')) form.setValue('planId', mostPopular.id);
  }, [mostPopular, form]);

  // A member's email is filled in, unless they already typed one.
  useEffect(() => {
    if (profile && !form.getFieldState('email').isDirty) form.setValue('email', profile.email);
  }, [profile, form]);

  const isWaitingForSchema = useRef(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    if (checkout.isPending || isWaitingForSchema.current) return;
    // The schema arrives on the page's first touch (form-schemas.ts), nearly always long before
    // this click; a click that was the first touch waits for it here (and a second click then
    // starts nothing more).
    isWaitingForSchema.current = true;
    // Its file not arriving is said by a toast (loadForCheck), and nothing more happens.
    const schema = checkoutFormSchema.loaded() ?? (await checkoutFormSchema.loadForCheck());
    isWaitingForSchema.current = false;
    if (!schema) return;
    const parsed = schema.safeParse(form.getValues());
    if (!parsed.success) {
      // Each field's message under it.
      await form.trigger();
      return;
    }
    // Opened now, while the click still counts as the person's own action (pending-tab.ts). After
    // a wait for the schema it may not: a browser that then refuses the tab gets the payment page
    // in this one instead (PendingTab.go).
    const paymentTab = openPendingTab(text('preparingPaymentPage'));
    // Awaited rather than given callbacks, so the tab is sent on (or closed) even if this page
    // is left meanwhile. The toasts, the server's error among them, are the query client's.
    await checkout
      .mutateAsync(parsed.data)
      .then(({ paymentURL }) => paymentTab.go(paymentURL))
      .catch(() => paymentTab.close());
  }

  return (
    <div className={styles.page}>
      <header className={styles.intro}>
        <h1 className={styles.title}>{text('title')}</h1>
        <p className={styles.subtitle}>{text('subtitle')}</p>
      </header>
      <form className={styles.layout} onSubmit={onSubmit} noValidate>
        <div className={styles.steps}>
          <section className={styles.step} aria-labelledby="step-plan">
            <h2 className={styles.stepTitle} id="step-plan">
              <span className={styles.stepNumber}>1</span> {text('stepPlan')}
            </h2>
            {plans.isError ? (
              <div className={styles.loadError} role="alert">
                <p>{text('plansLoadError', { message: plans.error.message })}</p>
                <Button variant="outlined" size={38} onClick={() => void plans.refetch()}>
                  {text('tryAgain')}
                </Button>
              </div>
            ) : (
              <div
                className={styles.plans}
                role="radiogroup"
                aria-labelledby="step-plan"
                aria-busy={plans.isPending}
                aria-invalid={planError ? true : undefined}
                aria-describedby={planError ? 'plan-error' : undefined}
              >
                {plans.data
                  ? plans.data.map((plan) => (
                      <PlanCard
                        key={plan.id}
                        plan={plan}
                        isMostPopular={plan.id === mostPopular?.id}
                        inputProps={planInputProps}
                      />
                    ))
                  : // As many as the catalogue sells (day, week, month, year): the list keeps
                    // its height when the plans arrive.
                    [0, 1, 2, 3].map((index) => <PlanCardSkeleton key={index} />)}
              </div>
            )}
            {planError ? (
              <p className={styles.fieldError} id="plan-error" role="alert">
                {planError}
              </p>
            ) : null}
          </section>

          <section className={styles.step} aria-labelledby="step-email">
            <h2 className={styles.stepTitle} id="step-email">
              <span className={styles.stepNumber}>2</span> {text('stepEmail')}
            </h2>
            <EmailInput label={text('emailLabel')} hint={text('emailHint')} {...field('email')} />
          </section>

          <section className={`${styles.step} ${styles.payStep}`} aria-labelledby="step-pay">
            <h2 className={styles.stepTitle} id="step-pay">
              <span className={styles.stepNumber}>3</span> {text('stepPay')}
            </h2>
            <p className={styles.stepText}>
              <LockIcon width={16} height={16} /> {text('payNote')}
            </p>
            <Button type="submit" size={56} fullWidth disabled={checkout.isPending}>
              <StripeIcon /> {text('payWithStripe')}
            </Button>
            <p className={styles.legal}>
              <RichText
                texts={text}
                name="legal"
                // The links' words are the message's, which RichText puts inside them.
                /* eslint-disable jsx-a11y/anchor-has-content */
                components={{
                  terms: <a href={externalLinks.termsOfUse} target="_blank" rel="noreferrer" />,
                  privacy: (
                    <a href={externalLinks.privacyPolicy} target="_blank" rel="noreferrer" />
                  ),
                }}
                /* eslint-enable jsx-a11y/anchor-has-content */
              />
            </p>
          </section>
        </div>
        <OrderSummary plan={selectedPlan} />
      </form>
    </div>
  );
}
