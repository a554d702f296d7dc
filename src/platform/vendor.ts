/**
 * The spec writes the vendor's name as `svc` (`user[svc_auth_attributes][email]`); the real
 * service has used another word. Every param name that holds it is built here, nowhere else.
 */
export const DEFAULT_VENDOR = 'svc';

export function authAttributes(vendor: string): string {
  return `user[${vendor}_auth_attributes]`;
}

export function emailParam(vendor: string): string {
  return `${authAttributes(vendor)}[email]`;
}

export function emailConfirmationParam(vendor: string): string {
  return `${authAttributes(vendor)}[email_confirmation]`;
}

export function passwordParam(vendor: string): string {
  return `${authAttributes(vendor)}[password]`;
}
