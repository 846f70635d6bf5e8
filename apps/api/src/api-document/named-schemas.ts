// The names of the API document's shapes (#/components/schemas/…): the error, the token pair, the
// profile, a plan, a purchase, a session… A generated client turns each into one named type
// (`Profile`, `PurchaseItem`) instead of an anonymous copy per call, and the document states the
// error shape once rather than on every response.
//
// The names come from the contract: each exported `…Schema` of an object (or a union or list of
// them) is named after its export, without the suffix. The registry is this module's own, not
// zod's global one, so naming the document changes nothing else that reads the schemas.
import * as contract from '@kegel/contract';
import { type Endpoint, endpoints } from '@kegel/contract';
import * as z from 'zod/v4/core';

/** Shapes whose export name would read oddly as a type name. */
const RENAMED: ReadonlyMap<z.$ZodType, string> = new Map<z.$ZodType, string>([
  [contract.ErrorBodySchema, 'Error'],
]);

/**
 * Exports that are not shapes a client exchanges: path and query parameters (the document lists
 * them one by one, which a reference could not do) and the web forms' own schemas (they add a
 * confirmation field and the like, and no call takes them).
 */
function isExchangedShape(exportName: string): boolean {
  return !/(Params|Query|Form)Schema$/.test(exportName);
}

/** Objects, and unions or lists of them: the shapes worth a name (not one string or number). */
function isCompound(schema: z.$ZodType): boolean {
  const type = schema._zod.def.type;
  return type === 'object' || type === 'union' || type === 'array' || type === 'pipe';
}

/** The registry the document's transform reads: every named shape of the contract. */
export function namedContractSchemas(): z.$ZodRegistry<{ id?: string }> {
  const registry = z.registry<{ id?: string }>();
  for (const [schema, name] of RENAMED) registry.add(schema, { id: name });
  for (const [exportName, value] of Object.entries(contract)) {
    if (!exportName.endsWith('Schema') || !(value instanceof z.$ZodType)) continue;
    if (!isExchangedShape(exportName) || !isCompound(value) || registry.has(value)) continue;
    registry.add(value, { id: exportName.slice(0, -'Schema'.length) });
  }
  // A call's body or answer that the contract did not export under a name of its own is named
  // after the call, so that no shape of the document stays anonymous.
  for (const [callName, call] of Object.entries(endpoints) as Array<[string, Endpoint]>) {
    const typeName = callName.charAt(0).toUpperCase() + callName.slice(1);
    if (call.body && !registry.has(call.body))
      registry.add(call.body, { id: `${typeName}Request` });
    for (const answer of Object.values<z.$ZodType>(call.success)) {
      if (!registry.has(answer)) registry.add(answer, { id: `${typeName}Response` });
    }
  }
  return registry;
}
