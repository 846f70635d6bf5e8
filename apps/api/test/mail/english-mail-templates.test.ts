// Every mail in English, byte for byte as it was before its texts moved to the catalogs' `mail`
// namespace: the spec, the mail tests and the browser journeys read these texts. The snapshot was
// taken from the templates with their English written inline; a change to it is a change of the
// English mail, to be made on purpose.
import { describe, expect, it } from 'vitest';

import { TEMPLATE_CASES } from './template-cases';

describe('mail templates in English', () => {
  it.each(TEMPLATE_CASES)('%s is unchanged', (_name, render) => {
    const email = render();
    expect(email).toMatchSnapshot();
    expect(render('en')).toEqual(email);
  });
});
