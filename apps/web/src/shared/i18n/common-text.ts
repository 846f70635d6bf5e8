import * as catalog from 'virtual:catalog/common';

import { defineTexts } from './define-texts';

/** The frame's texts (header, footer, what every page shares): in the entry, on every page. */
export const useCommonText = defineTexts<'common'>(catalog);
