"""Provider token formats that neither ``kernel.redaction.self_naming_tokens`` nor detect-secrets' rules cover.

Written from the providers' documented token shapes (the ones gitleaks' rule
list also names): Bitbucket app passwords, Slack app tokens, Square, Firebase
Cloud Messaging server keys, Sentry, Databricks, New Relic, Grafana, Postman,
Dropbox, Azure AD client secrets, Notion, Supabase, Airtable, Figma, Tailscale,
Google refresh tokens, Fly.io, Heroku, Netlify, Mapbox, Groq, Replicate,
Perplexity, xAI, Docker Hub, Vercel, RubyGems, NuGet, Clojars, PlanetScale,
Contentful, Frame.io, Shippo, EasyPost, Flutterwave, LangSmith, Tavily,
Pinecone, PostHog (personal keys), JFrog reference tokens, Microsoft Teams
incoming webhooks, Resend, Prefect, Buildkite, Scalingo, Typeform, Intercom,
Render, OpenRouter, Alibaba Cloud, Tencent Cloud, Scaleway, Braintree, Asana,
Twitter/X bearer tokens, Facebook, 1Password, CircleCI, SonarQube, ElevenLabs,
crates.io, Plaid and LaunchDarkly; BitLocker recovery passwords; and wallets' private keys (Nostr nsec, BIP32 xprv,
Bitcoin WIF). Each is a prefix the provider chose so that scanners find it
(WIF's is a first character and a length). Plain data.
"""

from __future__ import annotations

# (kind, pattern): a leading \b is checked on each match (``kernel.redaction.context_rules``), not by the regex engine.
FORMATS: list[tuple[str, str]] = [
    ("bitbucket-app-password", r"\bATBB[A-Za-z0-9_=.-]{24,}"),
    ("slack-app-token", r"\bxapp-\d-[A-Za-z0-9]{6,}-\d{6,}-[A-Za-z0-9]{20,}"),
    ("square-token", r"\b(?:sq0atp-[A-Za-z0-9_-]{22,}|sq0csp-[A-Za-z0-9_-]{40,}|EAAA[A-Za-z0-9_-]{56,})"),
    ("fcm-server-key", r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{60,}|\bAPA91b[A-Za-z0-9_-]{60,}"),
    ("sentry-token", r"\bsntry[su]_[A-Za-z0-9+/=_]{30,}"),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("newrelic-key", r"\bNR(?:AK|II|JS|AA)-[A-Z0-9]{20,}\b"),
    ("grafana-token", r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|glc_[A-Za-z0-9+/]{32,}={0,2})"),
    ("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("dropbox-token", r"\bsl\.[A-Za-z0-9_-]{120,}"),
    ("azure-ad-secret", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"),
    ("notion-token", r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b"),
    ("supabase-token", r"\bsbp_[a-f0-9]{40}\b"),
    ("airtable-token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"),
    ("figma-token", r"\bfigd_[A-Za-z0-9_-]{40,}"),
    ("tailscale-key", r"\btskey-[a-z]{0,8}-?[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"),
    ("google-refresh-token", r"\b1//0[A-Za-z0-9_-]{40,}"),
    ("fly-token", r"\bFlyV1\s+fm\d_[A-Za-z0-9+/=_,-]{40,}|\bfo1_[A-Za-z0-9_-]{40,}"),
    ("heroku-token", r"\bHRKU-[A-Za-z0-9_-]{36,}"),
    ("netlify-token", r"\bnfp_[A-Za-z0-9]{36,}"),
    ("mapbox-token", r"\b[ps]k\.eyJ[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{20,}"),
    ("groq-key", r"\bgsk_[A-Za-z0-9]{48,}"),
    ("replicate-token", r"\br8_[A-Za-z0-9]{37,}"),
    ("perplexity-key", r"\bpplx-[A-Za-z0-9]{40,}"),
    ("xai-key", r"\bxai-[A-Za-z0-9]{70,}"),
    ("dockerhub-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{24,}"),
    ("vercel-token", r"\bv(?:cp|ci|ca|cr|ck)_[A-Za-z0-9]{40,}"),
    ("rubygems-key", r"\brubygems_[a-f0-9]{48}\b"),
    ("nuget-key", r"\boy2[a-z0-9]{43}\b"),
    ("clojars-token", r"\bCLOJARS_[a-z0-9]{60}\b"),
    ("planetscale-token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}"),
    ("contentful-token", r"\bCFPAT-[A-Za-z0-9_-]{43}\b"),
    ("frameio-token", r"\bfio-u-[A-Za-z0-9_=-]{64}"),
    ("shippo-token", r"\bshippo_(?:live|test)_[a-f0-9]{40}\b"),
    ("easypost-key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b"),
    ("flutterwave-key", r"\bFLW(?:SECK|PUBK)_TEST-[a-h0-9]{32}-X\b|\bFLWSECK-[a-f0-9]{32}-X\b"),
    ("langsmith-key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b"),
    ("tavily-key", r"\btvly-(?:dev-|prod-)?[A-Za-z0-9]{32,}"),
    ("pinecone-key", r"\bpcsk_[A-Za-z0-9]{4,10}_[A-Za-z0-9]{40,}"),
    ("posthog-personal-key", r"\bphx_[A-Za-z0-9]{40,}"),
    ("jfrog-token", r"\bcmVmdGtu(?:OjAxOj|MDE6)[A-Za-z0-9]{40,}"),
    (
        "teams-webhook",
        # (the GUIDs and the hex written shorter too, as a note or a redacted example cuts them; the older
        # outlook.office.com/webhook/ host; a V2 URL's signature after the last GUID)
        r"\b(?:[a-z0-9-]{1,60}\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/"
        r"[a-f0-9-]{8,36}@[a-f0-9-]{8,36}/IncomingWebhook/[a-f0-9]{16,32}/[a-f0-9-]{8,36}(?:/[A-Za-z0-9_-]{8,80})?",
    ),
    ("resend-key", r"\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b"),
    ("prefect-key", r"\bpnu_[A-Za-z0-9]{36}\b"),
    ("buildkite-token", r"\bbkua_[a-f0-9]{40}\b"),
    ("scalingo-token", r"\btk-us-[A-Za-z0-9_-]{48}\b"),
    ("typeform-token", r"\btfp_[A-Za-z0-9_.=-]{59,64}"),
    ("intercom-token", r"\bdG9rOj[A-Za-z0-9+/]{40,}={0,2}"),
    ("render-key", r"\brnd_[A-Za-z0-9]{32}\b"),
    ("openrouter-key", r"\bsk-or-v1-[a-f0-9]{64}\b"),
    ("alibaba-access-key", r"\bLTAI[A-Za-z0-9]{12,20}\b"),
    ("tencent-secret-id", r"\bAKID[A-Za-z0-9]{32}\b"),
    ("scaleway-access-key", r"\bSCW[A-Z0-9]{17}\b"),
    ("braintree-token", r"\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}\b"),
    ("asana-token", r"(?<![\w/])[0-9]{1,2}/[0-9]{13,20}(?:/[0-9]{13,20})?:[a-f0-9]{32}\b"),
    ("twitter-bearer", r"\bAAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,}"),
    ("facebook-token", r"\bEAA[A-Z][A-Za-z0-9]{90,}"),
    ("onepassword-token", r"\bops_eyJ[A-Za-z0-9+/=_-]{40,}"),
    (
        "onepassword-secret-key",
        r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
    ),
    ("circleci-token", r"\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b"),
    ("sonar-token", r"\bsq[pua]_[a-f0-9]{40}\b"),
    ("elevenlabs-key", r"\bsk_[a-f0-9]{48}\b"),
    ("crates-token", r"\bcio[A-Za-z0-9]{32}\b"),
    # wallets' private keys: Nostr's nsec (bech32), BIP32 extended private keys, Bitcoin's WIF (base58, 51 or 52
    # characters: 5 then H/J/K uncompressed, K or L compressed)
    ("nostr-secret-key", r"\bnsec1[02-9ac-hj-np-z]{58}\b"),
    ("extended-private-key", r"\b[xyztuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,112}\b"),
    (
        "wif-private-key",
        r"(?<![\w+/=])(?:5[HJK][1-9A-HJ-NP-Za-km-z]{49}|[KL][1-9A-HJ-NP-Za-km-z]{51})(?![\w+/=])",
    ),
    # LaunchDarkly's server-side SDK keys and mobile keys: sdk- or mob- then a UUID
    ("launchdarkly-key", r"\b(?:sdk|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
    # a BitLocker recovery password: eight groups of six digits (each a multiple of 11, but any digits count)
    ("bitlocker-recovery-key", r"(?<![\d-])\d{6}(?:-\d{6}){7}(?![\d-])"),
    (
        "plaid-token",
        r"\b(?:access|public)-(?:sandbox|development|production)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b",
    ),
]


# The literal one of which each match of a format holds, where its pattern does not start with it.
FORMAT_GATES: dict[str, tuple[str, ...]] = {
    "azure-ad-secret": ("q~",),
    "fcm-server-key": ("apa91b",),
    "fly-token": ("flyv1", "fo1_"),
    "square-token": ("sq0", "eaaa"),
    "grafana-token": ("glsa_", "glc_"),
    "notion-token": ("secret_", "ntn_"),
    "newrelic-key": ("nrak-", "nrii-", "nrjs-", "nraa-"),
    "mapbox-token": ("k.eyj",),
    "vercel-token": ("vcp_", "vci_", "vca_", "vcr_", "vck_"),
    "flutterwave-key": ("flwseck", "flwpubk"),
    "easypost-key": ("ezak", "eztk"),
    "jfrog-token": ("cmvmdgtu",),
    "teams-webhook": (".webhook.office.com", "outlook.office"),
    "bitlocker-recovery-key": ("-",),
    "asana-token": ("/",),
    "plaid-token": ("-sandbox-", "-development-", "-production-"),
    "extended-private-key": ("prv",),
}
