// What the sign-in page says when better-auth's OAuth callback sends the browser back with ?error=<code>. Only
// known codes get their own text; the provider's error_description is not shown (anyone can write it in a link).

export interface SsoErrorText {
  title: string;
  detail: string;
}

export function ssoErrorText(code: string, provider: string): SsoErrorText {
  const c = code.toLowerCase();
  if (c === "no_mapped_group")
    return {
      title: "Redrive access refused",
      detail: `You signed in at ${provider}, but none of your groups there gives access to Redrive. Ask an administrator to add you to a group that is mapped to a Redrive role.`,
    };
  if (c === "account_disabled")
    return { title: "Account disabled", detail: "Your Redrive account is disabled. Ask an administrator to enable it." };
  if (c === "demo_account_disabled") return { title: "Demo account refused", detail: "Demo accounts are turned off on this server." };
  if (c === "account_not_linked")
    return {
      title: "Account already exists",
      detail: `A Redrive account with your e-mail address already signs in with a password, so it is not joined to your ${provider} identity. Ask an administrator to remove or rename it.`,
    };
  if (c === "access_denied") return { title: "Sign-in cancelled", detail: `${provider} did not sign you in. Try again.` };
  if (c.includes("state") || c === "please_restart_the_process" || c === "invalid_callback_request")
    return { title: "Sign-in could not be verified", detail: "The sign-in expired or did not come from this browser. Start again." };
  return {
    title: "Sign-in failed",
    detail: `Signing in through ${provider} failed (${code.slice(0, 60)}). Try again, or ask an administrator.`,
  };
}
