import * as catalog from 'virtual:catalog/messages';

import { registerNamespace } from './i18n';

// The contract's texts in the page's language (localizeMessage): imported by the modules that
// show one (the forms), so their other languages load with the page. English costs nothing here.
registerNamespace(catalog);
