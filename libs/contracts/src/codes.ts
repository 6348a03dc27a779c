import { z } from 'zod';

/**
 * The closed code lists that messages carry, declared once for every service: the FHIR codes of
 * the interface that a message names (libs/fhir-model's `codes.ts` reads its lists from here and
 * adds the displays and the codes no message carries).
 */

/** `ServiceRequest.status` (docs/decisions.md, "Requests"). */
export const ServiceRequestStatus = z.enum(['active', 'revoked']);
export type ServiceRequestStatus = z.infer<typeof ServiceRequestStatus>;

/** `ServiceRequest.intent`: `proposal` while clinics are asked, `order` once one is selected. */
export const ServiceRequestIntent = z.enum(['proposal', 'order']);
export type ServiceRequestIntent = z.infer<typeof ServiceRequestIntent>;

/** `ServiceRequest.orderDetail` (spec, ServiceRequest, "orderDetail codes"). */
export const OrderDetailCode = z.enum(['selected-provider', 'selected-provider-cancelled']);
export type OrderDetailCode = z.infer<typeof OrderDetailCode>;

/** `Task.status` (docs/decisions.md, "Tasks"): follows the clinic's answer and the request's state. */
export const TaskStatus = z.enum(['requested', 'accepted', 'rejected', 'on-hold', 'cancelled', 'in-progress']);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** `Task.businessStatus.coding[0].code` (docs/decisions.md, "Tasks"): the clinic's answer. */
export const BusinessStatus = z.enum(['accepted', 'declined', 'query', 'more-data-required']);
export type BusinessStatus = z.infer<typeof BusinessStatus>;
