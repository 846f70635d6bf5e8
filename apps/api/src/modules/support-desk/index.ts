// The support desk's public face (ADR 020): what the composition root hands its routes.

export type { SupportDeskDependencies } from './rules';
