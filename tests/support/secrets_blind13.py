"""Thirteenth held-out secrets corpus (issue 36): web and product work, written blind.

Its author read only the ``Secret``/``SeededDraw`` head of ``secrets_corpus``, the header of
``secrets_blind7`` (for its format) and ``secret_corpus_measure``; no redaction rule, no other corpus
and no secrets test. Values drawn from SeededDraw("blind13") or by hand, none live. Vendor-looking
keys are assembled from pieces. Never to be used for tuning rules: it only measures.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_HEX = "0123456789abcdef"
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_B64URL = ALNUM + "-_"
_DIGITS = "0123456789"

_DRAW = SeededDraw("blind13")
_s = _DRAW.chars


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


def _j(*parts: str) -> str:
    return "".join(parts)


_FORMS: list[tuple[str, str, str]] = []


def _f(name: str, template: str, needle: str) -> None:
    """A form whose text is ``template`` with ``{v}`` standing for the needle."""
    _FORMS.append((name, template.replace("{v}", needle), needle))


# --- frontend env files and build configs ---------------------------------------------------------
_f(
    "frontend_env/next_server",
    "# .env.local\nNEXT_PUBLIC_SITE_URL=https://shop.example\nSTRIPE_SECRET_KEY={v}\n",
    _j("sk_", "live_", _s("fe1", 99)[:99]),
)
_f(
    "frontend_env/vite_secret",
    "VITE_APP_NAME=Kiosk\nVITE_ADMIN_API_SECRET={v}  # oops this ships to the bundle",
    _s("fe2", 40, _HEX),
)
_f(
    "frontend_env/nuxt_runtime",
    "export default defineNuxtConfig({\n  runtimeConfig: { cmsPreviewSecret: '{v}', public: { base: '/' } }\n})",
    _s("fe3", 32),
)
_f("frontend_env/cra_env", "REACT_APP_FIREBASE_API_KEY=AIzaSy0{v}", _s("fe4", 32, _B64URL))
_f(
    "frontend_env/webpack_define",
    "new webpack.DefinePlugin({ 'process.env.SENTRY_AUTH_TOKEN': JSON.stringify('{v}') })",
    _j("sntrys_", _s("fe5", 60)),
)
_f(
    "frontend_env/astro_env",
    "astro build fails: SANITY_WRITE_TOKEN={v} is set but the dataset is private?",
    _j("sk", _s("fe6", 78)),
)
_f("frontend_env/dotenv_quoted", 'DATABASE_URL="postgres://app:{v}@db.internal:5432/shop"', _s("fe7", 24))
_f("frontend_env/netlify_toml", '[build.environment]\n  CONTENTFUL_DELIVERY_TOKEN = "{v}"', _s("fe8", 43, _B64URL))
_f("frontend_env/lowercase_pw", "in .env.production i have db_pass={v} and it still says access denied", "kiwi-lamp-77")
_f(
    "frontend_env/gatsby_config",
    "resolve: 'gatsby-source-shopify', options: { password: '{v}', storeUrl: 'demo.myshopify.com' }",
    _j("shpat_", _s("fe9", 32, _HEX)),
)

# --- browser devtools: storage, network tab, console ----------------------------------------------
_jwt_hdr = b64url_text('{"alg":"HS256","typ":"JWT"}')
_jwt_body = b64url_text('{"sub":"4411","role":"admin","exp":1790000000}')
_jwt = _j(_jwt_hdr, ".", _jwt_body, ".", _s("dt1", 43, _B64URL))
_f("devtools/localstorage_jwt", "Application > Local Storage > https://app.example\nkey: auth_token   value: {v}", _jwt)
_f(
    "devtools/copy_as_curl",
    "curl 'https://api.example.com/v2/orders' -H 'accept: */*' -H 'authorization: Bearer {v}' --compressed",
    _s("dt2", 40),
)
_f(
    "devtools/cookie_table",
    "Name\tValue\tDomain\nsessionid\t{v}\t.example.com\ncsrftoken\tabc\t.example.com",
    _s("dt3", 32, _LOWER),
)
_f(
    "devtools/console_log",
    "console.log(user) ->\n{id: 7, email: 'a@b.co', resetToken: '{v}', __proto__: Object}",
    _s("dt4", 48, _HEX),
)
_f(
    "devtools/har_header",
    '{"name": "X-Api-Key", "value": "{v}"}, {"name": "Accept", "value": "application/json"}',
    _s("dt5", 36),
)
_f(
    "devtools/set_cookie",
    "Response headers:\nset-cookie: connect.sid=s%3A{v}; Path=/; HttpOnly",
    _j(_s("dt6", 32, _B64URL), ".", _s("dt6b", 27)),
)
_f("devtools/session_storage", "sessionStorage.getItem('refresh') => \"{v}\"", _j("rt_", _s("dt7", 40)))
_f(
    "devtools/form_data_payload",
    "Payload tab shows Form Data:\nusername: marta.k\npassword: {v}\nremember: on",
    "Sunflower!1988",
)
_f(
    "devtools/query_param",
    "GET https://maps.example/api/js?callback=init&key={v}&libraries=places 403",
    _j("AIza", _s("dt8", 35, _B64URL)),
)

# --- serverless and edge platforms ----------------------------------------------------------------
_f("serverless/vercel_token", "vercel deploy --prod --token {v}", _s("sv1", 24))
_f("serverless/netlify_auth", "export NETLIFY_AUTH_TOKEN={v}\nnetlify deploy --dir=dist", _j("nfp_", _s("sv2", 36)))
_f(
    "serverless/cloudflare_wrangler",
    "wrangler secret put STRIPE_KEY\n? Enter a secret value: {v}\n Success!",
    _j("rk_", "live_", _s("sv3", 40)),
)
_f("serverless/cf_api_token", "CLOUDFLARE_API_TOKEN={v} npx wrangler deploy", _s("sv4", 40, _B64URL))
_f("serverless/aws_lambda_env", '"Environment": {"Variables": {"DB_PASSWORD": "{v}", "STAGE": "prod"}}', _s("sv5", 20))
_f("serverless/sls_yml", "provider:\n  environment:\n    MAILGUN_KEY: {v}", _j("key-", _s("sv6", 32, _HEX)))
_f(
    "serverless/supabase_service",
    "const supabase = createClient(url, '{v}') // service role, server only",
    _j(_jwt_hdr, ".", b64url_text('{"role":"service_role","iss":"supabase"}'), ".", _s("sv7", 43, _B64URL)),
)
_f("serverless/deno_deploy", "deployctl deploy --project=shop --token={v} main.ts", _j("ddp_", _s("sv8", 36)))
_f("serverless/fly_secret", "fly secrets set SESSION_SECRET={v}", _s("sv9", 64, _HEX))
_f("serverless/firebase_ci", 'firebase deploy --token "{v}"', _j("1//0", _s("sva", 60, _B64URL)))

# --- CMS: WordPress, Drupal, headless -------------------------------------------------------------
_f(
    "cms/wp_config_db",
    "define( 'DB_NAME', 'wp_client' );\ndefine( 'DB_USER', 'wp_client' );\ndefine( 'DB_PASSWORD', '{v}' );",
    _s("cm1", 18),
)
_f("cms/wp_salt", "define('AUTH_KEY',         '{v}');", _s("cm2", 64, ALNUM + "!@#%^&*()-_[]{}<>~+=,.;:/?|"))
_f(
    "cms/wp_app_password",
    "Application password for REST: {v} (user editor2)",
    " ".join(
        _s("cm3", 24, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")[i : i + 4]
        for i in range(0, 24, 4)
    ),
)
_f("cms/wp_admin_login", "staging is at /wp-admin, login is admin / {v} , dont change it pls", "bluebird2024")
_f(
    "cms/drupal_settings",
    "$databases['default']['default'] = ['username' => 'drupal', 'password' => '{v}', 'host' => 'localhost'];",
    _s("cm4", 16),
)
_f("cms/drupal_hash_salt", "$settings['hash_salt'] = '{v}';", _s("cm5", 55, _B64URL))
_f("cms/strapi_token", "STRAPI_API_TOKEN={v}", _s("cm6", 256, _HEX))
_f("cms/contentful_cma", "contentful space export --management-token {v}", _j("CFPAT-", _s("cm7", 43, _B64URL)))
_f(
    "cms/sanity_token",
    "const client = sanityClient({ projectId: 'abcd1234', token: '{v}', useCdn: false })",
    _j("sk", _s("cm8", 80)),
)
_f("cms/ghost_admin", "Ghost admin API key: {v}", _j(_s("cm9", 24, _HEX), ":", _s("cma", 64, _HEX)))
_f("cms/storyblok_preview", "https://app.storyblok.com/#/edit?access_token={v}&space=123", _s("cmb", 24))

# --- e-commerce platforms -------------------------------------------------------------------------
_f("ecommerce/shopify_admin", "X-Shopify-Access-Token: {v}", _j("shpat_", _s("ec1", 32, _HEX)))
_f(
    "ecommerce/shopify_shared_secret",
    "SHOPIFY_API_SECRET={v}  # from the partner dashboard",
    _j("shpss_", _s("ec2", 32, _HEX)),
)
_f(
    "ecommerce/woo_consumer",
    "WooCommerce REST: consumer_key=ck_{v} consumer_secret=cs_{v2}".replace("{v2}", _s("ec3b", 40, _HEX)),
    _s("ec3", 40, _HEX),
)
_f(
    "ecommerce/woo_secret_only",
    "const api = new WooCommerceRestApi({ url, consumerKey: 'ck_x', consumerSecret: '{v}' })",
    _j("cs_", _s("ec4", 40, _HEX)),
)
_f("ecommerce/magento_integration", "bin/magento config:show ... integration access token: {v}", _s("ec5", 32, _LOWER))
_f("ecommerce/bigcommerce", "X-Auth-Token: {v}\nX-Auth-Client: 1a2b3c", _s("ec6", 31, _LOWER))
_f("ecommerce/shopware_admin", "shopware admin user: admin  Passwort: {v}", "Shopware#Demo42")
_f("ecommerce/prestashop_ws", "curl -u {v}: https://boutique.example/api/products", _s("ec7", 32, _UPPER))
_f("ecommerce/commercetools", "CTP_CLIENT_SECRET={v}\nCTP_PROJECT_KEY=shop-eu", _s("ec8", 32, _B64URL))
_f("ecommerce/storefront_private", "private storefront token (do not expose): {v}", _s("ec9", 32, _HEX))

# --- payments -------------------------------------------------------------------------------------
_f("payments/stripe_secret", 'stripe.api_key = "{v}"', _j("sk_", "live_", _s("py1", 24)))
_f("payments/stripe_restricted", "const stripe = new Stripe('{v}')", _j("rk_", "live_", _s("py2", 99)))
_f("payments/stripe_webhook", "STRIPE_WEBHOOK_SECRET={v}", _j("whsec_", _s("py3", 32)))
_f(
    "payments/stripe_test_cli",
    "> stripe listen --forward-to localhost:3000/webhook\nReady! Your webhook signing secret is {v} (^C to quit)",
    _j("whsec_", _s("py4", 64, _HEX)),
)
_f("payments/paypal_client_secret", "PAYPAL_CLIENT_ID=AXy\nPAYPAL_CLIENT_SECRET={v}", _j("E", _s("py5", 79, _B64URL)))
_f(
    "payments/braintree_private",
    "gateway = braintree.BraintreeGateway(braintree.Configuration(braintree.Environment.Production, merchant_id='m', public_key='p', private_key='{v}'))",
    _s("py6", 32, _HEX),
)
_f("payments/adyen_api_key", "X-API-Key: {v}", _j("AQE", _s("py7", 90, _B64URL)))
_f("payments/mollie", '$mollie->setApiKey("{v}");', _j("live_", _s("py8", 30)))
_f("payments/square_access", "SQUARE_ACCESS_TOKEN={v}", _j("EAAA", _s("py9", 60, _B64URL)))
_f("payments/razorpay_secret", 'razorpay.Client(auth=("rzp_live_Ab12", "{v}"))', _s("pya", 24))
_f(
    "payments/klarna_basic",
    "Authorization: Basic {v}",
    base64.b64encode(_j("K123456_ab", ":", _s("pyb", 16)).encode()).decode(),
)
_f("payments/card_number", "test order failed with my own card {v} exp 09/28 cvc 412", "4929 1837 4410 2286")
_f(
    "payments/iban_prose",
    "la transferencia va a mi IBAN {v}, no lo pongas en el README",
    "ES91 2100 0418 4502 0005 1332",
)

# --- email and SMS marketing ----------------------------------------------------------------------
_f("messaging/sendgrid", "SENDGRID_API_KEY={v}", _j("SG.", _s("ms1", 22, _B64URL), ".", _s("ms1b", 43, _B64URL)))
_f("messaging/mailchimp", "mailchimp.setConfig({ apiKey: '{v}', server: 'us21' })", _j(_s("ms2", 32, _HEX), "-us21"))
_f(
    "messaging/mailgun_smtp",
    "SMTP login postmaster@mg.example.com, password {v}",
    _s("ms3", 32, _HEX) + "-" + _s("ms3b", 8, _HEX),
)
_f("messaging/postmark", "X-Postmark-Server-Token: {v}", str(uuid.UUID(bytes=_DRAW.raw("ms4", 16))))
_f("messaging/twilio_auth", "client = Client('AC' + sid, '{v}')", _s("ms5", 32, _HEX))
_f(
    "messaging/twilio_env",
    "TWILIO_ACCOUNT_SID=AC{sid}\nTWILIO_AUTH_TOKEN={v}".replace("{sid}", _s("ms6b", 32, _HEX)),
    _s("ms6", 32, _HEX),
)
_f("messaging/brevo", "api-key: {v}", _j("xkeysib-", _s("ms7", 64, _HEX), "-", _s("ms7b", 16)))
_f(
    "messaging/klaviyo_private",
    "Klaviyo private key {v} is in the zap, public one is XyZ12a",
    _j("pk_", _s("ms8", 34, _HEX)),
)
_f("messaging/vonage", "VONAGE_API_SECRET={v}", _s("ms9", 16))
_f(
    "messaging/smtp_gmail_app",
    "EMAIL_HOST_USER=shop@gmail.com\nEMAIL_HOST_PASSWORD={v}",
    " ".join(_s("msa", 16, "abcdefghijklmnopqrstuvwxyz")[i : i + 4] for i in range(0, 16, 4)),
)
_f("messaging/messagebird", "Authorization: AccessKey {v}", _s("msb", 25))
_f("messaging/resend", "const resend = new Resend('{v}');", _j("re_", _s("msc", 8), "_", _s("msc2", 24)))

# --- maps / search / media APIs -------------------------------------------------------------------
_f(
    "media_api/google_maps",
    '<script src="https://maps.googleapis.com/maps/api/js?key={v}"></script>',
    _j("AIza", _s("ma1", 35, _B64URL)),
)
_f(
    "media_api/mapbox_secret",
    "MAPBOX_DOWNLOADS_TOKEN={v}",
    _j("sk.", b64url_text('{"u":"agency","a":"ckx1"}'), ".", _s("ma2", 22, _B64URL)),
)
_f("media_api/algolia_admin", "algoliasearch('LATENCY', '{v}') // admin key, for indexing", _s("ma3", 32, _HEX))
_f("media_api/meilisearch_master", "docker run -e MEILI_MASTER_KEY='{v}' getmeili/meilisearch", _s("ma4", 32))
_f(
    "media_api/cloudinary_url",
    "CLOUDINARY_URL=cloudinary://{k}:{v}@agency-cloud".replace("{k}", _s("ma5b", 15, _DIGITS)),
    _s("ma5", 27, _B64URL),
)
_f("media_api/imgix_token", "imgix secure URL token: {v}", _s("ma6", 16))
_f("media_api/mux_secret", "MUX_TOKEN_ID=abc\nMUX_TOKEN_SECRET={v}", _s("ma7", 75, ALNUM + "+/"))
_f("media_api/typesense", "typesense client: nodes=[...], apiKey='{v}'", _s("ma8", 32))
_f(
    "media_api/elastic_cloud",
    "Elastic Cloud API key (encoded): {v}",
    base64.b64encode(_j(_s("ma9", 20), ":", _s("ma9b", 22)).encode()).decode(),
)
_f(
    "media_api/youtube_data",
    "fetch(`https://www.googleapis.com/youtube/v3/search?part=snippet&q=${q}&key={v}`)",
    _j("AIza", _s("maa", 35, _B64URL)),
)
_f("media_api/unsplash_secret", "UNSPLASH_SECRET_KEY={v}", _s("mab", 43, _B64URL))

# --- app stores and mobile push -------------------------------------------------------------------
_f(
    "mobile/fcm_server_key",
    "Authorization: key={v}",
    _j("AAAA", _s("mo1", 7, _B64URL), ":APA91b", _s("mo1b", 134, _B64URL)),
)
_f(
    "mobile/apns_p8",
    "-----BEGIN PRIVATE KEY-----\n{v}\n-----END PRIVATE KEY-----\n(AuthKey_8X2K9.p8 for push)",
    _DRAW.b64("mo2", 48),
)
_f("mobile/app_store_connect", "APP_STORE_CONNECT_API_KEY_CONTENT={v}", _DRAW.b64("mo3", 60))
_f("mobile/fastlane_password", "FASTLANE_PASSWORD='{v}' fastlane release", "Tr0mbone&Toast")
_f(
    "mobile/app_specific",
    "FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD={v}",
    "-".join(_s("mo4", 16, "abcdefghijklmnopqrstuvwxyz")[i : i + 4] for i in range(0, 16, 4)),
)
_f(
    "mobile/keystore_gradle",
    "signingConfigs { release { storePassword '{v}'\n keyAlias 'upload'\n keyPassword 'same' } }",
    "androidKS!2023",
)
_f(
    "mobile/onesignal",
    "ONESIGNAL_REST_API_KEY={v}",
    _j("os_v2_app_", _s("mo5", 100, "abcdefghijklmnopqrstuvwxyz234567")),
)
_f("mobile/expo_token", "EXPO_TOKEN={v} eas build -p ios", _s("mo6", 40, _B64URL))
_f(
    "mobile/google_play_json",
    '{"type": "service_account", "private_key_id": "{v}", "client_email": "play@pc-api.iam.gserviceaccount.com"}',
    _s("mo7", 40, _HEX),
)
_f("mobile/match_password", "MATCH_PASSWORD={v}", _s("mo8", 14))
_f("mobile/codepush", "appcenter codepush release-react -a org/app --token {v}", _s("mo9", 40, _HEX))

# --- customer support and CRM ---------------------------------------------------------------------
_f("crm/hubspot_private_app", "HUBSPOT_ACCESS_TOKEN={v}", _j("pat-eu1-", str(uuid.UUID(bytes=_DRAW.raw("cr1", 16)))))
_f("crm/zendesk_basic", "curl https://acme.zendesk.com/api/v2/tickets.json -u agent@acme.com/token:{v}", _s("cr2", 40))
_f("crm/intercom", "Authorization: Bearer {v}", _j("dG9rOj", _s("cr3", 54, _B64URL), "="))
_f("crm/salesforce_security_token", "sf login: username dev@acme.com password+token = hunter77{v}", _s("cr4", 25))
_f("crm/pipedrive", "https://api.pipedrive.com/v1/deals?api_token={v}", _s("cr5", 40, _HEX))
_f("crm/freshdesk", "freshdesk api key {v} (use with X as password)", _s("cr6", 20))
_f(
    "crm/zoho_refresh",
    "refresh_token=1000.{v}&client_id=1000.ABC&grant_type=refresh_token",
    _j(_s("cr7", 32, _HEX), ".", _s("cr7b", 32, _HEX)),
)
_f("crm/helpscout_secret", "HELPSCOUT_APP_SECRET={v}", _s("cr8", 32))
_f("crm/crisp_plugin", "Crisp plugin token identifier:key = 1d5f:{v}", _s("cr9", 64, _HEX))
_f("crm/gorgias", "Gorgias basic auth: support@shop.fr : {v}", _s("cra", 64, _HEX))

# --- webhooks between SaaS products ---------------------------------------------------------------
_f(
    "webhooks/slack_incoming",
    "POST https://hooks.slack.com/services/{v}",
    _j("T0", _s("wh1", 9, _UPPER), "/B0", _s("wh1b", 9, _UPPER), "/", _s("wh1c", 24)),
)
_f(
    "webhooks/discord",
    "DISCORD_WEBHOOK=https://discord.com/api/webhooks/112233445566778899/{v}",
    _s("wh2", 68, _B64URL),
)
_f("webhooks/zapier_catch", "Zap trigger URL https://hooks.zapier.com/hooks/catch/123456/{v}/", _s("wh3", 7, _LOWER))
_f("webhooks/github_secret", "Repo settings > Webhooks > Secret: {v}", _s("wh4", 40, _HEX))
_f("webhooks/shopify_hmac_key", "verify with crypto.createHmac('sha256', '{v}').update(body)", _s("wh5", 64, _HEX))
_f(
    "webhooks/teams_connector",
    "https://acme.webhook.office.com/webhookb2/{v}",
    _j(
        str(uuid.UUID(bytes=_DRAW.raw("wh6", 16))),
        "@",
        str(uuid.UUID(bytes=_DRAW.raw("wh6b", 16))),
        "/IncomingWebhook/",
        _s("wh6c", 32, _HEX),
    ),
)
_f("webhooks/make_url", "Make scenario webhook: https://hook.eu1.make.com/{v}", _s("wh7", 32, _LOWER))
_f("webhooks/svix_secret", "SVIX_WEBHOOK_SECRET={v}", _j("whsec_", _DRAW.b64("wh8", 24)))
_f(
    "webhooks/signing_hand",
    "the shared webhook signing string between Typeform and our API is {v} btw",
    "pineapple-otter-sunday",
)
_f("webhooks/basic_in_url", "Webhook target: https://hooks:{v}@crm.example.org/inbound", _s("wh9", 18))

# --- staging sites shared with clients ------------------------------------------------------------
_f(
    "staging/htpasswd_creds",
    "Staging: https://staging.clientsite.com  (basic auth: preview / {v})",
    "ClientPreview2025",
)
_f("staging/url_userinfo", "check https://review:{v}@stage.acme-shop.dev/checkout before friday", _s("st1", 12))
_f("staging/password_protect", "the staging site is password protected, password is {v}", "mangotree")
_f(
    "staging/german_mail",
    "Hallo Frau Weber, die Testseite ist fertig. Zugang: Benutzer kunde, Kennwort {v}. Viele Grüße",
    "Sommer2025!",
)
_f(
    "staging/french_mail",
    "Bonjour, le site de recette est en ligne. Identifiant : client, mot de passe : {v}",
    "Recette#89",
)
_f("staging/spanish", "El sitio de pruebas pide usuario demo y contraseña {v}", "Gato-Azul-31")
_f("staging/portuguese", "senha do ambiente de homologação: {v}", "Homolog@2025")
_f("staging/italian", "per entrare nello staging: utente ospite, la password è {v}", "Pizza4Stagioni")
_f("staging/dutch", "wachtwoord voor de testomgeving = {v}", "Tulp&Fiets9")
_f("staging/japanese", "ステージング環境のパスワードは {v} です", "sakura-stage-88")
_f("staging/vercel_protection", "x-vercel-protection-bypass: {v}", _s("st2", 32))
_f(
    "staging/preview_link",
    "preview link for client: https://cms.example/api/preview?secret={v}&slug=home",
    _s("st3", 20),
)

# --- agency handovers to clients ------------------------------------------------------------------
_f(
    "handover/table_row",
    "| Service | Login | Password |\n|---|---|---|\n| Hosting cPanel | acme | {v} |",
    "Cp4nel-Acme!",
)
_f("handover/registrar", "Domain registrar (Namecheap): user acmeco, pw {v}", "Registrar_77xq")
_f("handover/ftp", "SFTP host: 203.0.113.10 port 22 user deploy pass {v}", _s("ho1", 14))
_f(
    "handover/bullets",
    "Handover:\n- Google Analytics: owner transferred\n- Mailchimp login: hello@acme.co\n- Mailchimp password: {v}",
    "Newsletter*2024",
)
_f(
    "obfuscated/caps_word",
    "Your WordPress admin password is the word {v} (all caps) followed by the year",
    "LIGHTHOUSE",
)
_f("obfuscated/split_two_lines", "password first half: Orange7\nsecond half: {v}", "Kettle#55")
_f("i18n_prose/swedish", "Lösenordet till webbhotellet är {v}", "Blabar-Sylt-4")
_f("i18n_prose/polish", "Hasło do panelu administracyjnego: {v}", "Krakow!Panel9")
_f("handover/cpanel_token", "cPanel API token (name: deploy): {v}", _s("ho2", 32, _UPPER))
_f(
    "handover/vault_export",
    "1Password export:\ntitle,url,username,password\nShop admin,https://shop.example/admin,owner,{v}",
    _s("ho3", 20, ALNUM + "!#%"),
)
_f("handover/dns_provider", "Cloudflare global API key for acme account: {v}", _s("ho4", 37, _HEX))
_f(
    "handover/noisy",
    "ok so >>> the login thing ->  user:owner  //  {v}  << that's the one from the sticky note",
    "dolphin7summer",
)

# --- analytics and tag management -----------------------------------------------------------------
_f(
    "analytics/ga_mp_secret",
    "fetch(`https://www.google-analytics.com/mp/collect?measurement_id=G-ABC123&api_secret={v}`)",
    _s("an1", 22, _B64URL),
)
_f("analytics/mixpanel_secret", "MIXPANEL_API_SECRET={v}", _s("an2", 32, _HEX))
_f("analytics/segment_write", "analytics = Analytics('{v}') # server-side write key", _s("an3", 32))
_f("analytics/amplitude_secret", "amplitude export -u API_KEY:{v}", _s("an4", 32, _HEX))
_f("analytics/posthog_personal", "POSTHOG_PERSONAL_API_KEY={v}", _j("phx_", _s("an5", 43)))
_f("analytics/fb_capi", "Conversions API access token: {v}", _j("EAAG", _s("an6", 180)))
_f("analytics/hotjar", "HOTJAR_CLIENT_SECRET: {v}", _s("an7", 48, _HEX))

# --- auth providers (web login) ------------------------------------------------------------------
_f("auth/nextauth_secret", "NEXTAUTH_SECRET={v}", _DRAW.b64("au1", 32))
_f("auth/auth0_client_secret", "AUTH0_CLIENT_SECRET='{v}'", _s("au2", 64, _B64URL))
_f("auth/clerk_secret", "CLERK_SECRET_KEY={v}", _j("sk_", "live_", _s("au3", 40)))
_f(
    "auth/google_oauth",
    '{"web":{"client_id":"123-abc.apps.googleusercontent.com","client_secret":"{v}"}}',
    _j("GOCSPX-", _s("au4", 28, _B64URL)),
)
_f("auth/github_oauth_app", "GITHUB_CLIENT_SECRET={v}", _s("au5", 40, _HEX))
_f("framework_secret/express_session", "app.use(session({ secret: '{v}', resave: false }))", "keyboard-cat-prod-xx9")
_f("auth/jwt_hmac", "jwt.sign(payload, \"{v}\", { expiresIn: '1h' })", _s("au6", 48))
_f(
    "auth/firebase_admin_key",
    '"private_key": "-----BEGIN PRIVATE KEY-----\\n{v}\\n-----END PRIVATE KEY-----\\n"',
    _DRAW.b64("au7", 90),
)
_f(
    "auth/magic_link",
    "clicked the login link https://app.example/auth/verify?token={v}&email=x%40y.z and got 410",
    _s("au8", 64, _HEX),
)
_f("auth/okta_api", "Authorization: SSWS {v}", _j("00", _s("au9", 40, _B64URL)))

# --- databases and BaaS used by web apps ----------------------------------------------------------
_f("database/mongo_atlas", "MONGODB_URI=mongodb+srv://shopuser:{v}@cluster0.ab1cd.mongodb.net/shop", _s("db1", 16))
_f(
    "database/planetscale",
    "DATABASE_URL='mysql://x1y2:{v}@aws.connect.psdb.cloud/shop?sslaccept=strict'",
    _j("pscale_pw_", _s("db2", 43, _B64URL)),
)
_f("database/redis_upstash", "UPSTASH_REDIS_REST_TOKEN={v}", _j("AX", _s("db3", 62, _B64URL)))
_f(
    "database/neon",
    "postgresql://neondb_owner:{v}@ep-cool-dawn.eu-central-1.aws.neon.tech/neondb",
    _j("npg_", _s("db4", 12)),
)
_f("database/firebase_secret", "FIREBASE_DATABASE_SECRET={v}", _s("db5", 40))
_f(
    "database/turso",
    "TURSO_AUTH_TOKEN={v}",
    _j(_jwt_hdr.replace("HS256", "EdDSA"), ".", b64url_text('{"a":"rw","id":"db1"}'), ".", _s("db6", 86, _B64URL)),
)
_f(
    "database/prisma_accelerate",
    'DATABASE_URL="prisma://accelerate.prisma-data.net/?api_key={v}"',
    _j(_jwt_hdr, ".", b64url_text('{"tenant_id":"abc"}'), ".", _s("db7", 43, _B64URL)),
)
_f("database/pgpass_line", "~/.pgpass: db.client.com:5432:shop:shop_admin:{v}", _s("db8", 15))
_f("database/airtable_pat", "Airtable PAT {v}", _j("pat", _s("db9", 14), ".", _s("db9b", 64, _HEX)))

# --- hosting and CI for web projects --------------------------------------------------------------
_f("hosting/heroku_api", "HEROKU_API_KEY={v}", str(uuid.UUID(bytes=_DRAW.raw("ho5", 16))))
_f("hosting/render_deploy_hook", "curl -X POST https://api.render.com/deploy/srv-abc123?key={v}", _s("ho6", 11))
_f("hosting/digitalocean", "doctl auth init -t {v}", _j("dop_v1_", _s("ho7", 64, _HEX)))
_f(
    "hosting/github_pat",
    "git remote set-url origin https://{v}@github.com/agency/client-site.git",
    _j("ghp_", _s("ho8", 36)),
)
_f(
    "hosting/gitlab_deploy",
    "gitlab deploy token: username gitlab+deploy-token-7, token {v}",
    _j("gldt-", _s("ho9", 20)),
)
_f("hosting/npm_token", "//registry.npmjs.org/:_authToken={v}", _j("npm_", _s("hoa", 36)))
_f("hosting/kinsta_ssh", "ssh clientsite@35.1.2.3 -p 41234   # password {v}", _s("hob", 16))
_f("hosting/wpengine_sftp", "WP Engine SFTP user clientsite-agency / {v}", "sftp-Engine-2024")
_f("hosting/ftp_url", "lftp ftp://webmaster:{v}@ftp.client-hosting.de/htdocs", "Webspace2019")

# --- maps/geocoding, translation, AI in product ---------------------------------------------------
_f(
    "product_api/openai_in_route",
    "// app/api/chat/route.ts\nconst openai = new OpenAI({ apiKey: '{v}' })",
    _j("sk-", "proj-", _s("pa1", 48, _B64URL)),
)
_f("product_api/anthropic", "ANTHROPIC_API_KEY={v}", _j("sk-", "ant-", "api03-", _s("pa2", 93, _B64URL), "AA"))
_f("product_api/deepl", "deepl.Translator('{v}')", _j(str(uuid.UUID(bytes=_DRAW.raw("pa3", 16))), ":fx"))
_f("product_api/here_maps", "https://geocode.search.hereapi.com/v1/geocode?q=Berlin&apiKey={v}", _s("pa4", 43, _B64URL))
_f("product_api/opencage", "OPENCAGE_KEY = {v}", _s("pa5", 32, _HEX))
_f("product_api/recaptcha_secret", "RECAPTCHA_SECRET_KEY={v}", _j("6L", _s("pa6", 38, _B64URL)))
_f("product_api/turnstile_secret", "TURNSTILE_SECRET_KEY={v}", _j("0x4AAAAAAA", _s("pa7", 25, _B64URL)))
_f("product_api/replicate", "REPLICATE_API_TOKEN={v}", _j("r8_", _s("pa8", 37)))

# --- hard: spelled out, split, obfuscated ---------------------------------------------------------
_f(
    "obfuscated/spelled_letters",
    "the preview pw, letter by letter so the client can type it: {v}",
    "b-r-i-g-h-t-o-n-4-4",
)
_f(
    "obfuscated/reversed",
    "client wrote it backwards in the email so spam filters dont catch it: {v}",
    "5202!snoilehtaerb",
)
_f("obfuscated/json_escaped", '{"settings":"{\\"smtp\\":{\\"user\\":\\"shop\\",\\"pass\\":\\"{v}\\"}}"}', _s("hd1", 16))
_f(
    "obfuscated/url_encoded",
    "redirect_uri=...&client_secret={v}&grant_type=authorization_code",
    "Zx%2Fq9%2BmK" + _s("hd2", 20),
)
_f("hard/yaml_multiline", "secrets:\n  mailer:\n    password: >-\n      {v}", _s("hd3", 22))
_f("hard/php_array", "'smtp' => array('host' => 'smtp.office365.com', 'pw' => \"{v}\"),", "Office365-Spring!")
_f("hard/chat_just_value", "here u go {v}", "hH7#kq2Lm9vW")
_f("hard/after_typo", "pasword for the shopify collaborator account: {v}", "collab.Fern.2025")
_f("hard/in_sql", "INSERT INTO wp_options (option_name, option_value) VALUES ('smtp_pass', '{v}');", _s("hd4", 14))
_f("hard/ini_no_space", "[mail]\nsmtp_user=shop\nsmtp_pass={v}\n", "Mailbox88Rain")
_f("hard/html_hidden", '<input type="hidden" name="api_secret" value="{v}">', _s("hd5", 30))
_f("i18n_prose/chinese", "测试站点的密码是 {v}，请勿外传", "Panda_Stage_66")
_f("i18n_prose/russian", "пароль от админки сайта: {v}", "Moskva-Admin7")
_f("i18n_prose/korean", "관리자 비밀번호: {v}", "Hangang2025#")
_f("i18n_prose/turkish", "yönetim paneli şifresi {v}", "Bogaz!Kopru3")
_f(
    "hard/env_export_inline",
    "env $(echo STRIPE=${v}) node server.js".replace("${v}", "{v}"),
    _j("sk_", "live_", _s("hd6", 34)),
)
_f("hard/docker_arg", "docker build --build-arg NPM_TOKEN={v} .", _s("hd7", 36, _HEX))
_f("hard/python_dict", "CONFIG = {'shop': {'token': '{v}'}}", _s("hd8", 38))
_f("hard/lowercase_hex_no_label", "x-custom: {v}", _s("hd9", 48, _HEX))
_f("hard/backtick_markdown", "Use `{v}` as the Klaviyo private key in the Zap step.", _j("pk_", _s("hda", 34, _HEX)))
_f("hard/colon_space_table", "ADMIN PASSWORD ..... {v}", "Waffle-Iron-12")
_f("hard/passphrase_words", "the passphrase is correct horse staple {v}", "purple-giraffe-orbit")
_f("two_factor/pos_pin", "Shopify POS staff PIN {v} for the popup store", "4813")
_f(
    "two_factor/totp_seed",
    "2FA backup: otpauth://totp/Shop:admin?secret={v}&issuer=Shop",
    _s("hdb", 32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
)
_f("two_factor/recovery_codes", "2FA recovery codes for the client's Shopify: {v} 8d1f-22aa", "4f7b-9c0e")
_f("framework_secret/laravel_app_key", "APP_KEY=base64:{v}", _DRAW.b64("hdc", 32))
_f("framework_secret/rails_master", "config/master.key: {v}", _s("hdd", 32, _HEX))
_f(
    "framework_secret/django_secret",
    "SECRET_KEY = 'django-insecure-{v}'",
    _s("hde", 50, "abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*(-_=+)"),
)
_f("framework_secret/symfony_secret", "APP_SECRET={v}", _s("hdf", 32, _HEX))

# --- email headers / support tickets quoting credentials ------------------------------------------
_f(
    "ticket/zendesk_comment",
    "Ticket #48213 customer wrote: 'my account password is {v} and it still says invalid'",
    "MyDog&Bella2",
)
_f("ticket/freshdesk_reply", "Agent note: customer gave us temp password {v} to reproduce", "Temp-4-Reproduce")
_f("ticket/intercom_convo", "[Intercom] visitor: can you log in as me? pw {v}", "rosesarered99")
_f(
    "ticket/chat_export",
    "14:02 Anna: the shop owner login is anna@shop.de\n14:03 Anna: {v}\n14:03 Bot: Thanks!",
    "Anna.Shop.1990",
)
_f(
    "ticket/email_thread",
    "> On Mon, Tom wrote:\n> new SMTP pass for the newsletter box: {v}\nThanks Tom",
    "Newsbox_Oct24",
)

# --- mobile config files --------------------------------------------------------------------------
_f("mobile_config/google_services", '"api_key": [{"current_key": "{v}"}]', _j("AIza", _s("mc1", 35, _B64URL)))
_f("mobile_config/info_plist", "<key>BranchKeySecret</key>\n<string>{v}</string>", _j("secret_live_", _s("mc2", 32)))
_f(
    "mobile_config/local_properties",
    "# local.properties\nMAPS_API_KEY={v}\nsdk.dir=/Users/dev/Library/Android/sdk",
    _j("AIza", _s("mc3", 35, _B64URL)),
)
_f(
    "mobile_config/revenuecat",
    'Purchases.configure(withAPIKey: "{v}") // secret key by mistake',
    _j("sk_", _s("mc4", 32)),
)
_f("mobile_config/sentry_properties", "auth.token={v}\ndefaults.org=agency", _j("sntryu_", _s("mc5", 64, _HEX)))

_SECRETS: list[Secret] = [Secret(name, text, needle) for name, text, needle in _FORMS]

# --- ordinary texts: no secret, but near them -----------------------------------------------------
_HAND: list[str] = [
    "NEXT_PUBLIC_SUPABASE_URL=https://xyzcompany.supabase.co",
    "STRIPE_SECRET_KEY=sk_live_...  # replace with your own key, never commit it",
    "const key = process.env.STRIPE_SECRET_KEY;",
    "apiKey: import.meta.env.VITE_MAPS_KEY,",
    "Only variables prefixed with VITE_ are exposed to your Vite-processed code.",
    "Warning: You are using a test mode key. Switch to live mode before launch.",
    "Error: No API key provided. You can set your API key using 'stripe.api_key = <API-KEY>'.",
    "401 Unauthorized: invalid_token (The access token expired)",
    "Application > Local Storage is empty for this origin.",
    "Uncaught TypeError: Cannot read properties of undefined (reading 'token')",
    "Failed to load resource: the server responded with a status of 403 (Forbidden)",
    "Set-Cookie was blocked because it had the SameSite=None attribute but did not have the Secure attribute.",
    "DevTools failed to load source map: Could not load content for webpack://app/./src/index.tsx",
    "[HMR] Waiting for update signal from WDS...",
    "vercel env pull .env.local",
    "netlify env:set API_TOKEN  # prompts for the value, nothing is echoed",
    "wrangler secret put STRIPE_KEY",
    "Enter a secret value: ********",
    "fly secrets list shows only digests, never the values.",
    "aws lambda get-function-configuration --function-name checkout --query 'Environment.Variables | keys(@)'",
    "define( 'DB_PASSWORD', getenv('WORDPRESS_DB_PASSWORD') );",
    "define('AUTH_KEY', 'put your unique phrase here');",
    "Generate salts at https://api.wordpress.org/secret-key/1.1/salt/ and paste them into wp-config.php.",
    "$settings['hash_salt'] = file_get_contents('/var/private/salt.txt');",
    "Drupal 10.2.4 status report: all checks passed",
    "Strapi v4.15.0 started in development mode at http://localhost:1337/admin",
    "Contentful space ID: 3x7k9v2mqpzl (public, it's in every URL)",
    "Sanity project id: 'abcd1234', dataset: 'production', apiVersion: '2024-01-01'",
    "Ghost(Pro) Content API is read-only and safe to use in the browser.",
    "shopify app dev --store=demo-store.myshopify.com",
    "Shopify API version 2024-10 is now the stable release.",
    "WooCommerce > Settings > Advanced > REST API > Add key",
    "Consumer keys start with ck_ and consumer secrets with cs_; store both in your env file.",
    "bin/magento setup:upgrade && bin/magento cache:flush",
    "Order #100004213 placed, status: processing",
    "Stripe publishable keys start with pk_ and can be shared in client code.",
    "pk_test_TYooMQauvdEDq54NiTphI7jx is the sample key from the Stripe docs.",
    "stripe listen --forward-to localhost:4242/webhook",
    "stripe trigger payment_intent.succeeded",
    "Use the test card 4242 4242 4242 4242 with any future expiry and any CVC.",
    "payment_intent.id = pi_3OqLxZ2eZvKYlo2C0abc1234 (an id, not a secret)",
    "charge id ch_1Nc9dE2eZvKYlo2CXYZ, customer cus_PqR7aB9cDeF",
    "PayPal sandbox accounts are created in the developer dashboard.",
    "Webhook signature verification failed: No signatures found matching the expected signature for payload.",
    "Braintree environment: Sandbox",
    "Adyen merchant account: AgencyClientECOM",
    "The IBAN format for Germany is DE followed by 20 characters.",
    "SendGrid API keys begin with SG. and are shown only once at creation.",
    "Mailchimp audience id: a1b2c3d4e5, datacenter us21",
    "Mailgun domain mg.example.com verified (SPF, DKIM ok)",
    "Twilio Account SID is public-ish; the auth token is what you must hide.",
    "Message SM1f2e3d4c5b6a79880f1e2d3c4b5a6978 delivered",
    "DKIM selector: k1._domainkey.example.com TXT v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC",
    "v=spf1 include:_spf.google.com include:sendgrid.net ~all",
    "Klaviyo public API key (site id) is safe to embed in the storefront.",
    "EMAIL_HOST_PASSWORD = os.environ['EMAIL_HOST_PASSWORD']",
    "Use an app password if your Google account has 2-Step Verification turned on.",
    "Google Maps JavaScript API error: RefererNotAllowedMapError",
    "Restrict your Maps key to HTTP referrers like https://*.example.com/*",
    "Mapbox public tokens start with pk. and secret tokens with sk.",
    "algoliasearch(appId, searchOnlyApiKey) is the correct client-side setup.",
    "Meilisearch is running without a master key. To access this Meilisearch instance, you do not need to provide a key.",
    "cloudinary.config({ cloud_name: 'demo' })",
    "https://res.cloudinary.com/demo/image/upload/w_300,h_200,c_crop/sample.jpg",
    "imgix parameters: ?auto=format,compress&w=800&q=60",
    "YouTube Data API quota exceeded: 10000 units per day",
    "Firebase: Error (auth/invalid-api-key).",
    "The Firebase web API key is not a secret; security comes from rules.",
    "APNs environment: production, topic: com.agency.clientapp",
    "AuthKey_<KEY_ID>.p8 is downloaded once; keep it out of the repo.",
    "fastlane match development --readonly",
    "Build 1.4.2 (57) uploaded to App Store Connect, processing...",
    "Your app 'Client Shop' status is Waiting for Review.",
    'versionCode 57 versionName "1.4.2"',
    "keyAlias 'upload'",
    "storePassword System.getenv('KEYSTORE_PASSWORD')",
    "eas build --platform ios --profile production",
    "FCM registration token refreshed for device 3",
    "OneSignal App ID: 5eb5a37e-b458-11e3-ac11-000c2940e62c (public)",
    "HubSpot portal id 2419037",
    "Zendesk ticket #48213 updated: status solved",
    "Intercom app_id: x1y2z3a4 (this goes in the widget snippet)",
    "Salesforce org id 00D5g000004XyZ1EAK",
    "Pipedrive deal 1523 moved to stage 'Proposal sent'",
    "Freshdesk: use your API key as the username and X as the password in basic auth.",
    "Zoho CRM: refresh tokens do not expire unless revoked.",
    'curl -u "$ZENDESK_EMAIL/token:$ZENDESK_TOKEN" https://acme.zendesk.com/api/v2/users/me.json',
    "Slack incoming webhooks are posted to https://hooks.slack.com/services/...",
    "Discord webhook returned 429 Too Many Requests, retry_after 1.2",
    "Zapier task history: 1,204 tasks used of 2,000",
    "X-Hub-Signature-256: sha256=<hmac of the body with your webhook secret>",
    "X-Shopify-Hmac-Sha256 header is base64 of the HMAC; compare with timingSafeEqual.",
    "Make scenario 'Typeform -> HubSpot' ran successfully (ops used: 4)",
    "webhook delivery id 7c1e7a30-2b1e-11ef-9f0a-0242ac120002 status 200",
    "Staging is at https://staging.clientsite.com (ask the PM for access).",
    "The staging site is password protected; the password is in 1Password under 'Client staging'.",
    "Hallo Frau Weber, die Testseite ist fertig. Die Zugangsdaten schicke ich Ihnen separat per SMS.",
    "Bonjour, le site de recette est en ligne. Les identifiants vous seront envoyés par un autre canal.",
    "La contraseña debe tener al menos 12 caracteres, una mayúscula y un número.",
    "A senha foi redefinida com sucesso.",
    "Password dimenticata? Clicca qui per reimpostarla.",
    "Wachtwoord vergeten? Vraag een nieuwe link aan.",
    "パスワードは別途お送りします。",
    "密码已重置，请查收邮件。",
    "Пароль должен содержать не менее 8 символов.",
    "비밀번호를 잊으셨나요?",
    "Şifrenizi mi unuttunuz?",
    "Lösenordet måste vara minst tio tecken.",
    "Hasło zostało zmienione.",
    "Handover checklist: domain, DNS, hosting, analytics, email, passwords (shared via vault, not here).",
    "| Service | Login | Password |\n|---|---|---|\n| Hosting cPanel | acme | (in 1Password) |",
    "All credentials were transferred via the client's Bitwarden organisation on 12 May.",
    "Please rotate every password after the handover; we will not keep copies.",
    "SFTP host: 203.0.113.10 port 22 user deploy (key-based auth, no password)",
    "Google Analytics 4 measurement ID: G-8XK2L4M9QZ",
    "Google Tag Manager container GTM-W7K3PQZ",
    "Meta Pixel ID 123456789012345",
    "Segment source 'Website' write key is visible in the browser by design.",
    "PostHog project API key phc_ keys are public and meant for the frontend.",
    "NEXTAUTH_URL=http://localhost:3000",
    "openssl rand -base64 32  # generate a NEXTAUTH_SECRET",
    "AUTH0_DOMAIN=agency.eu.auth0.com",
    "client_id: 123456789012-abcdefghijklmnopqrstuvwxyz12.apps.googleusercontent.com",
    "Error: secret or public key must be provided",
    "JsonWebTokenError: invalid signature",
    "The magic link has expired. Request a new one.",
    "MongoServerError: bad auth : authentication failed",
    'FATAL: password authentication failed for user "shop"',
    "Access denied for user 'wp_client'@'localhost' (using password: YES)",
    "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: NO)",
    "redis-cli -u $UPSTASH_REDIS_URL ping",
    "DATABASE_URL=postgresql://USER:PASSWORD@HOST:5432/DB",
    "mysql://root:<password>@localhost:3306/shop",
    "heroku config:get DATABASE_URL -a client-shop",
    "doctl apps list --format ID,Spec.Name",
    "git remote -v  origin  git@github.com:agency/client-site.git (fetch)",
    'npm ERR! code E401 Unable to authenticate, need: Basic realm="GitHub Package Registry"',
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    "OPENAI_API_KEY is not set. Add it to .env.local.",
    "DeepL free API keys end with :fx.",
    "reCAPTCHA site key 6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI is Google's documented test key.",
    "Turnstile test site key 1x00000000000000000000AA always passes.",
    "const token = request.headers.get('authorization')?.replace('Bearer ', '');",
    "if (!process.env.WEBHOOK_SECRET) throw new Error('WEBHOOK_SECRET missing');",
    "password: z.string().min(12, 'Password too short')",
    '<input type="password" name="password" autocomplete="current-password">',
    "Your password must contain at least one symbol.",
    "Rotate the API key in the dashboard, then update the secret in Vercel.",
    "Secret scanning alert: Stripe API key detected in commit a3f9c21 (already revoked).",
    "APP_KEY=base64:  (run php artisan key:generate)",
    "rails credentials:edit --environment production",
    "SECRET_KEY = os.environ['DJANGO_SECRET_KEY']",
    "token_type: 'Bearer', expires_in: 3600, scope: 'read_products write_orders'",
    "Content-Security-Policy: default-src 'self'; script-src 'self' https://js.stripe.com",
    "Access-Control-Allow-Origin: https://shop.example",
    "Cache-Control: public, max-age=31536000, immutable",
    'ETag: W/"5e15153d-120f"',
    "x-vercel-id: fra1::iad1::8kz7q-1718000000000-abc123def456",
    "cf-ray: 8a1b2c3d4e5f6a7b-FRA",
    "Lighthouse performance score 94, LCP 1.8 s, CLS 0.02",
    "npm WARN deprecated request@2.88.2: request has been deprecated",
    "Node.js v20.11.1, npm 10.2.4, pnpm 8.15.4",
    "next build: Route (app) / 5.2 kB 92.1 kB First Load JS",
    "src/app/api/webhooks/stripe/route.ts",
    "public/.well-known/apple-app-site-association",
    "The 2FA code is sent by SMS to the shop owner's phone.",
    "otpauth://totp/Shop:admin?secret=<BASE32_SECRET>&issuer=Shop",
    "Recovery codes were downloaded by the client and stored offline.",
    "sha256 fingerprint of the APNs certificate: 3F:A2:91:0B:7C:44:E8:12:9D:5A:BB:06:71:C3:2E:8F",
    "ssh-ed25519 key fingerprint SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
    "Ticket #50112: customer can't reset password, reset email lands in spam.",
    "Agent note: asked customer to use the reset link instead of sending their password.",
    "[Intercom] visitor: I forgot my password, can you help?",
    "14:02 Anna: I can't log in to the shop\n14:03 Bot: Try resetting your password here.",
    "robots.txt: Disallow: /wp-admin/ Allow: /wp-admin/admin-ajax.php",
    "Google Search Console verification: google-site-verification=public-meta-tag-for-acme-shop",
    "Play Console: upload key certificate SHA-1 is listed under App integrity.",
    "Stripe Checkout session cs_test_a1B2c3 expired after 24 hours.",
    "Unsplash photo id: Dwu85P9SOIk by @johndoe (attribution required)",
]


def _generated() -> list[str]:
    out: list[str] = []
    for lib in ["react@18.3.1", "vue@3.4.21", "jquery@3.7.1", "bootstrap@5.3.3", "alpinejs@3.13.5", "htmx.org@1.9.10"]:
        digest = base64.b64encode(hashlib.sha384(lib.encode()).digest()).decode()
        out.append(
            f'<script src="https://cdn.jsdelivr.net/npm/{lib}" integrity="sha384-{digest}" crossorigin="anonymous"></script>'
        )
    for i, msg in enumerate(["fix checkout redirect", "bump next to 14.2", "add hreflang tags", "update privacy page"]):
        sha = hashlib.sha1(msg.encode()).hexdigest()
        out.append(f"commit {sha}\n    {msg} (#{210 + i})")
    for name in ["order", "customer", "product", "cart"]:
        out.append(f"{name}_id: {uuid.uuid5(uuid.NAMESPACE_URL, 'https://shop.example/' + name)}")
    for path in ["logo.svg", "hero.webp", "main.css"]:
        out.append(
            f"/_next/static/media/{path.split('.')[0]}.{hashlib.md5(path.encode()).hexdigest()[:8]}.{path.split('.')[1]}"
        )
    for cfg in [{"theme": "dark", "locale": "de-DE"}, {"currency": "EUR", "country": "FR"}]:
        out.append(f"cookie prefs={base64.b64encode(json.dumps(cfg).encode()).decode()}")
    out.append(
        f'package-lock: "integrity": "sha512-{base64.b64encode(hashlib.sha512(b"lodash-4.17.21").digest()).decode()}"'
    )
    out.append(f'ETag: "{hashlib.md5(b"index.html").hexdigest()}"')
    return out


BLIND13_ORDINARY: list[str] = _HAND + _generated()
BLIND13_SECRETS: list[Secret] = _SECRETS
