import * as catalog from 'virtual:catalog/desk';

import { defineTexts } from '../../shared/i18n/define-texts';

/** The support desk's texts: only the desk's modules import them, so no other page carries them. */
export const useDeskText = defineTexts<'desk'>(catalog);

/** The desk's text function, for helpers that word something for a component. */
export type DeskTexts = ReturnType<typeof useDeskText>;
