//! Credential exposure: live secrets written into the skill.
//!
//! The token fixtures below are fake and are assembled with `concat!` so that this source
//! file itself does not contain a token-shaped string for secret scanners to report.

use crate::guard::rule::{Category, Matcher, Rule, Severity};

pub const RULES: &[Rule] = &[
    Rule {
        id: "CRD001",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "Private key material",
        explanation: "Detects a PEM private key (RSA, DSA, EC, OpenSSH, PKCS#8, encrypted or PGP) whose header is followed by key data, and the private part of PuTTY key files. A private key in a skill is readable by everyone who installs or reviews it, and whoever has it can log in or sign as its owner. Instead, remove the key, rotate it, and have the skill use the user's own key store or agent.",
        matcher: Matcher::Text(
            r#"-----BEGIN (?:RSA |DSA |EC |OPENSSH |ENCRYPTED |PGP |SSH2 )?PRIVATE KEY(?: BLOCK)?-----(?:\s+[A-Za-z][\w-]*:[^\n]*)*\s+[A-Za-z0-9+/=]{40}|(?-u:\b)Private-Lines:[ \t]*\d+\s+[A-Za-z0-9+/=]{40}"#,
        ),
        fires: &[
            concat!("-----BEGIN OPENSSH PRIV", "ATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"),
            concat!("-----BEGIN RSA PRIV", "ATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"),
            concat!("Private-", "Lines: 5\nAAAAIQDNm3bQ2Xq8C1vLp0WmT7YkR4sHn6JgE9zFd2cKaUiOAAAAIQD"),
        ],
        passes: &[
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeL",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD002",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "AWS access key ID",
        explanation: "Detects AWS access key IDs (`AKIA`, `ASIA`, `ABIA`, `ACCA` or `A3T` followed by 16 base-32 characters); runs of X placeholders are ignored. Paired with its secret, the key gives access to the AWS account. Instead, remove it, deactivate it in IAM, and let the skill use the user's AWS profile or environment.",
        matcher: Matcher::Text(
            r#"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])(?:[A-WYZ2-7][A-Z2-7]{15}|X[A-WYZ2-7][A-Z2-7]{14}|XX[A-WYZ2-7][A-Z2-7]{13})(?-u:\b)"#,
        ),
        fires: &[
            "AKIAIOSFODNN7EXAMPLE",
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
            concat!("export AWS_ACCESS_KEY_ID=AS", "IAY34FZKBOKMUTVV7A"),
        ],
        passes: &[
            "AKIAXXXXXXXXXXXXXXXX",
            "aws_access_key_id = AKIA[YOUR_KEY_ID]",
            "export AWS_ACCESS_KEY_ID=YOUR_ACCESS_KEY",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD003",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "AWS secret access key",
        explanation: "Detects an `aws_secret_access_key` setting (any spelling) assigned a 40-character key. The secret key signs requests for the whole account. Instead, remove it, rotate the key pair, and rely on the user's AWS credentials chain.",
        matcher: Matcher::Text(
            r#"(?i:aws_?secret(?:_?access)?_?key)["']?[ \t]*[:=][ \t]*["']?[A-Za-z0-9/+]{40}(?:["'\s,;]|$)"#,
        ),
        fires: &[
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "AWS_SECRET_ACCESS_KEY=\"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
        ],
        passes: &[
            "aws_secret_access_key = YOUR_SECRET_ACCESS_KEY",
            "AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD004",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "GitHub token",
        explanation: "Detects GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` plus 36 characters) and fine-grained `github_pat_` tokens; x-filled placeholders are ignored. A token acts as the user on GitHub, often with write access to their repositories. Instead, revoke it and have the skill use `gh auth` or a `GITHUB_TOKEN` from the environment.",
        matcher: Matcher::Text(
            r#"(?-u:\b)(?:ghp|gho|ghu|ghs|ghr)_(?:[A-WYZa-wyz0-9][A-Za-z0-9]{35}|[Xx][A-WYZa-wyz0-9][A-Za-z0-9]{34}|[Xx]{2}[A-WYZa-wyz0-9][A-Za-z0-9]{33})(?-u:\b)|(?-u:\b)github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?-u:\b)"#,
        ),
        fires: &[
            concat!("GITHUB_TOKEN=gh", "p_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"),
            concat!("token: gith", "ub_pat_KLzdocJ2isAjIhKtJ0RlgL_KOmxgJTeKdNnFRIBXuDL7DxtpYlSXpfKtHF4vUCsMehGAkWvj7FAc9QeWJK"),
        ],
        passes: &[
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "GITHUB_TOKEN=ghp_YOUR_TOKEN_HERE",
            "export GH_TOKEN=$(gh auth token)",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD005",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "Slack token or webhook URL",
        explanation: "Detects Slack bot, user, app and refresh tokens (`xoxb-`, `xoxp-`, `xoxa-`, `xoxe-`, `xapp-` with their numeric segments) and full incoming-webhook URLs. They let anyone read or post in the workspace. Instead, revoke them and read the token from the environment.",
        matcher: Matcher::Text(
            r#"(?-u:\b)xox[abposre]-[0-9]{8,13}-[0-9A-Za-z-]{8,}|(?-u:\b)xapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}|https://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,}/[A-Z0-9]{6,}/[A-WYZa-wyz0-9][A-Za-z0-9]{15,}"#,
        ),
        fires: &[
            concat!("SLACK_BOT_TOKEN=xo", "xb-2849301756-4938201938475-kY7d3Lq9ZpT2mW8vB1nR5sXc"),
            concat!("https://hooks.slack", ".com/services/T04ABCD12/B05EFGH34/q3Lw9Zk2Vt7PmN4rYx8Hs1Dc"),
        ],
        passes: &[
            "SLACK_BOT_TOKEN=xoxb-your-bot-token",
            "xoxb-xxxxxxxxxxxx-xxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx",
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD006",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "Anthropic API key",
        explanation: "Detects Anthropic API and admin keys (`sk-ant-` followed by a long key body; x-filled placeholders are ignored). The key bills model usage to its owner and may expose their workspace. Instead, revoke it in the console and read `ANTHROPIC_API_KEY` from the environment.",
        matcher: Matcher::Text(
            r#"(?-u:\b)sk-ant-(?:[a-z]+\d{2}-)?(?:[A-WYZa-wyz0-9_-]|[Xx][A-WYZa-wyz0-9_-])[A-Za-z0-9_-]{30,}"#,
        ),
        fires: &[
            concat!("ANTHROPIC_API_KEY=sk-an", "t-api03-ORS-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J1TWDtkwtDDb_xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8poAA"),
            concat!("sk-an", "t-Qm7vL2xR9pK4tW8zN3bH6cJ1fD5gS0aE"),
        ],
        passes: &[
            "ANTHROPIC_API_KEY=sk-ant-...",
            "sk-ant-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "export ANTHROPIC_API_KEY=YOUR_API_KEY",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD007",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "OpenAI API key",
        explanation: "Detects OpenAI keys, including project, service-account and admin keys, by their `sk-` prefix and the `T3BlbkFJ` marker inside the key body. The key bills usage to its owner's organisation. Instead, revoke it and read `OPENAI_API_KEY` from the environment.",
        matcher: Matcher::Text(
            r#"(?-u:\b)sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}"#,
        ),
        fires: &[
            concat!("OPENAI_API_KEY=sk-proj-2FDEEtfjgVvVqE1SkHbn88Hx", "T3BlbkFJjSI6bWHtP3fS2qHx6kwXoIIX"),
            concat!("openai.api_key = \"sk-Rk2m9Qw4Zt7Lp1Vx8Nc3", "T3BlbkFJb6Hs0Dg5Jf2Ka9Ye4Tu7\""),
        ],
        passes: &[
            "export OPENAI_API_KEY=YOUR_API_KEY",
            "OPENAI_API_KEY=sk-...",
            "sk-proj-XXXXXXXXXXXXXXXXXXXX",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD008",
        category: Category::CredentialExposure,
        severity: Severity::High,
        message: "Google API key or OAuth client secret",
        explanation: "Detects Google API keys (`AIzaSy` plus 33 characters) and Google OAuth client secrets (`GOCSPX-`). Unrestricted keys can be used against any enabled Google API on the owner's bill. Instead, remove the key, restrict or rotate it, and read it from the environment.",
        matcher: Matcher::Text(
            r#"(?m)(?-u:\b)AIzaSy(?:[A-WYZa-wyz0-9_-][0-9A-Za-z_-]{32}|X[A-WYZa-wyz0-9_-][0-9A-Za-z_-]{31})(?:[^0-9A-Za-z_-]|$)|(?-u:\b)GOCSPX-[A-Za-z0-9_-]{28}(?:[^0-9A-Za-z_-]|$)"#,
        ),
        fires: &[
            concat!("GOOGLE_API_KEY=AIza", "SyGvOoNZYW2mZp0zVZomHFwUbbYrEqmSM9w"),
            concat!("\"client_secret\": \"GOC", "SPX-4mQ9zL2vT7pK1wX8nB3cH6jD5fR0\""),
        ],
        passes: &[
            "GOOGLE_API_KEY=AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
            "GOOGLE_API_KEY=<your-key>",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD009",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "Stripe live secret or restricted key",
        explanation: "Detects Stripe live-mode secret and restricted keys (`sk_live_`, `rk_live_`). They move real money: refunds, payouts and customer data. Test-mode keys (`sk_test_`) are not reported. Instead, roll the key in the Stripe dashboard and load it from the environment.",
        matcher: Matcher::Text(r#"(?-u:\b)(?:sk|rk)_live_[0-9A-Za-z]{24,}(?-u:\b)"#),
        fires: &[concat!("STRIPE_SECRET_KEY=sk_li", "ve_CZ7Uw9xfogoEmvnEN5N1aE6P")],
        passes: &[
            "STRIPE_SECRET_KEY=sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            "STRIPE_SECRET_KEY=sk_live_YOUR_KEY",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD010",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "Package registry or code host token",
        explanation: "Detects GitLab personal and runner tokens (`glpat-`, `glrt-`), npm tokens (`npm_`), PyPI upload tokens (`pypi-AgEIcHlwaS5vcmc...`), Hugging Face tokens (`hf_`) and Docker Hub personal access tokens (`dckr_pat_`); x-filled placeholders are ignored. With them anyone can publish packages or push code in the owner's name, which is how supply-chain attacks start. Instead, revoke the token and use the registry's login flow or an environment variable.",
        matcher: Matcher::Text(
            r#"(?m)(?-u:\b)glpat-(?:[A-WYZa-wyz0-9_-][0-9A-Za-z_-]{19}|[Xx][A-WYZa-wyz0-9_-][0-9A-Za-z_-]{18})(?:[^0-9A-Za-z_-]|$)|(?-u:\b)glrt-[0-9A-Za-z_-]{20}(?:[^0-9A-Za-z_-]|$)|(?-u:\b)npm_(?:[A-WYZa-wyz0-9][A-Za-z0-9]{35}|[Xx][A-WYZa-wyz0-9][A-Za-z0-9]{34})(?-u:\b)|(?-u:\b)pypi-AgEIcHlwaS5vcmc[0-9A-Za-z_-]{50,}|(?-u:\b)hf_(?:[A-WYZa-wyz][A-Za-z]{33}|[Xx][A-WYZa-wyz][A-Za-z]{32})(?-u:\b)|(?-u:\b)dckr_pat_[A-Za-z0-9_-]{27}(?:[^0-9A-Za-z_-]|$)"#,
        ),
        fires: &[
            concat!("GITLAB_TOKEN=glp", "at-wZPf1Qh6yYTWmE4lBYOv"),
            concat!("//registry.npmjs.org/:_authToken=np", "m_fZ8UzDzV8fUkkibjL5DZPjN0MEQ7wjJJibaZ"),
            concat!("HF_TOKEN=h", "f_UPgHViBmnbqnsGpWLuqIAidVwDQLHAGiIj"),
        ],
        passes: &[
            "GITLAB_TOKEN=glpat-xxxxxxxxxxxxxxxxxxxx",
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
            "HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD011",
        category: Category::CredentialExposure,
        severity: Severity::Critical,
        message: "AI provider API key",
        explanation: "Detects API keys of AI providers with a recognisable format: Groq (`gsk_`), Replicate (`r8_`), xAI (`xai-`) and Perplexity (`pplx-`). They bill usage to their owner and skills for agents often handle them. Instead, revoke the key and read it from the environment.",
        matcher: Matcher::Text(
            r#"(?-u:\b)gsk_[A-Za-z0-9]{52}(?-u:\b)|(?-u:\b)r8_[A-Za-z0-9]{37}(?-u:\b)|(?-u:\b)xai-[A-Za-z0-9]{80}(?-u:\b)|(?-u:\b)pplx-[A-Za-z0-9]{48}(?-u:\b)"#,
        ),
        fires: &[
            concat!("GROQ_API_KEY=gs", "k_PQxjq4i9DoV8gz4FkQ1okTBGzvAmwufUxbvJDCTbyvHNsG9eh6Yo"),
            concat!("REPLICATE_API_TOKEN=r", "8_4gfqrc5XlrWi0B26R08qzjI6GKFSufrdZSlB5"),
        ],
        passes: &[
            "GROQ_API_KEY=gsk_your_key_here",
            "REPLICATE_API_TOKEN=r8_...",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD012",
        category: Category::CredentialExposure,
        severity: Severity::High,
        message: "SaaS service token",
        explanation: "Detects tokens of common services with fixed formats: SendGrid (`SG.`), Telegram bot tokens, Shopify (`shpat_`, `shpss_`), DigitalOcean (`dop_v1_`), Twilio API keys (`SK` plus 32 hex), Linear (`lin_api_`), Notion (`ntn_`) and Postman (`PMAK-`). Each grants access to the owner's account on that service. Instead, revoke the token and read it from the environment.",
        matcher: Matcher::Text(
            r#"(?m)(?-u:\b)SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?:[^A-Za-z0-9_-]|$)|(?-u:\b)[0-9]{8,10}:AA[0-9A-Za-z_-]{33}(?:[^0-9A-Za-z_-]|$)|(?-u:\b)shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?-u:\b)|(?-u:\b)do[opr]_v1_[a-f0-9]{64}(?-u:\b)|(?-u:\b)SK[0-9a-f]{32}(?-u:\b)|(?-u:\b)lin_api_[A-Za-z0-9]{40}(?-u:\b)|(?-u:\b)ntn_[0-9]{11}[A-Za-z0-9]{35}(?-u:\b)|(?-u:\b)PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?-u:\b)"#,
        ),
        fires: &[
            concat!("SENDGRID_API_KEY=S", "G.HGb3CXlMaXZjljENUhJduR.HHJEYXg4JdpmrcXgGCJbW56eCuNGMGmSrCGIZEG8pSH"),
            concat!("TELEGRAM_BOT_TOKEN=7312846590", ":AA4487q7J58m1CiAhzCueQpBenQtYh5Xj8T"),
            concat!("SHOPIFY_TOKEN=shp", "at_3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c2e"),
        ],
        passes: &[
            "SENDGRID_API_KEY=SG.your-key",
            "TELEGRAM_BOT_TOKEN=123456789:YOUR_TOKEN",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD013",
        category: Category::CredentialExposure,
        severity: Severity::Medium,
        message: "Password embedded in a connection URL",
        explanation: "Detects `scheme://user:password@host` URLs for HTTP, FTP, PostgreSQL, MySQL, MongoDB, Redis and AMQP with a literal password containing a digit or symbol (all-letter dummies such as `password` and placeholders in `<...>` or `${...}` are ignored). Credentials in URLs leak through logs, shell history and process listings. Documentation often uses dummy values here, so the rule is medium; instead, read the password from the environment or a secrets file.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)(?:https?|ftp|sftp|postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver)://[^\s:/@"'<>]+:[^\s:/@"'<>${}*]{0,40}?[0-9!#%^&+=~,;?()|][^\s:/@"'<>${}*]{0,40}@[\w.-]+"#,
        ),
        fires: &[
            "DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.example.com:5432/app",
            "git clone https://deploy:hunter2hunter2@git.example.com/org/repo.git",
        ],
        passes: &[
            "postgres://user:${DB_PASSWORD}@db:5432/app",
            "https://<user>:<token>@github.com/org/repo.git",
            "https://github.com/org/repo.git",
            "postgresql://username:password@localhost:5432/db",
            "postgres://postgres:postgres@localhost/test",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD014",
        category: Category::CredentialExposure,
        severity: Severity::High,
        message: "Hard-coded secret assigned to a key, token or password setting",
        explanation: "Detects a setting named like a key, token, secret or password assigned a literal value of 15 or more key characters in which digits and letters alternate (digit, letter, digit), the shape of a generated secret. Placeholders such as `YOUR_API_KEY`, `<your-api-key>`, `${VAR}`, `sk-1234567890abcdef` or `xxxx` runs do not match, nor do `token=` query parameters of URLs. Instead, remove the value, rotate it, and read it from the environment or a secrets manager.",
        matcher: Matcher::Text(
            r#"(?im)(?:^|[^?&;/\w])(?:[a-z0-9]+[_-])*(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key|refresh[_-]?token|bearer[_-]?token|password|passwd|secret|token)["']?[ \t]*(?::|=|:=|=>)[ \t]*["'`]?[A-Za-z0-9+/_.=\-]{6,}[0-9][A-Za-z0-9+/_.=\-]*?[A-Za-z][A-Za-z0-9+/_.=\-]*?[0-9][A-Za-z0-9+/_.=\-]{6,}["'`]?(?:[\s,;})\]]|$)"#,
        ),
        fires: &[
            "api_key = \"a8f5f167f44f4964e6c998dee827110c\"",
            "OPENAI_API_KEY=q8Zr2Lw5Xt9Vb3Nm7Kp1",
            "\"clientSecret\": \"7dH2kQ9wZ4xL1vB8nR3t\",",
        ],
        passes: &[
            "export OPENAI_API_KEY=YOUR_API_KEY",
            "api_key = \"<your-api-key>\"",
            "password = os.environ[\"DB_PASSWORD\"]",
            "max_tokens = 4096",
            "api_key = \"sk-example-1234567890abcdef\"",
            "OPENROUTER_API_KEY='sk-or-v1-project1-key'",
            "https://storage.example.com/o/img.png?alt=media&token=0445fa4f-67dd-41a4-a5f4-19df5a05d86d",
            "<img src=\"https://cdn.example.com/a.png?alt=media&amp;token=aac1d79b-ecca-4e56-939d-d97dcbbf30eb\">",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD015",
        category: Category::CredentialExposure,
        severity: Severity::High,
        message: "Hard-coded credential in an HTTP authorization header",
        explanation: "Detects `Authorization: Bearer|Token|Basic`, `x-api-key`, `api-key`, `x-auth-token` and `private-token` headers followed by a literal credential of 17 or more characters containing a digit. Placeholders such as `$TOKEN` or `<token>` do not match. Instead, build the header from an environment variable.",
        matcher: Matcher::Text(
            r#"(?i)(?-u:\b)(?:authorization[ \t]*:[ \t]*(?:bearer|token|basic)|x-api-key[ \t]*:|api-key[ \t]*:|x-auth-token[ \t]*:|private-token[ \t]*:)[ \t]*[A-Za-z0-9._~+/=-]{8,}[0-9][A-Za-z0-9._~+/=-]{8,}"#,
        ),
        fires: &[
            "curl -H \"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc123def456\" https://api.example.com",
            "-H 'x-api-key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0'",
        ],
        passes: &[
            "-H \"Authorization: Bearer $TOKEN\"",
            "Authorization: Bearer <token>",
            "-H \"x-api-key: $ANTHROPIC_API_KEY\"",
        ],
        ..Rule::PLAIN
    },
    Rule {
        id: "CRD016",
        category: Category::CredentialExposure,
        severity: Severity::Medium,
        message: "Private key header without key material",
        explanation: "Detects a PEM private-key header (`-----BEGIN ... PRIVATE KEY-----`) that is not followed by key data, and PuTTY key-file headers: a template, a truncated example or a reference to where a key goes. Documentation does this legitimately, which is why the rule is medium; a header followed by real key data is CRD001. Instead, describe where the user's key lives rather than showing a key block, and make sure no real key was cut off here.",
        matcher: Matcher::Text(
            r#"-----BEGIN (?:RSA |DSA |EC |OPENSSH |ENCRYPTED |PGP |SSH2 )?PRIVATE KEY(?: BLOCK)?-----[ \t]*(?:\r?\n[ \t]*)?(?:$|[^A-Za-z0-9+/=\s]|[A-Za-z0-9+/=]{1,39}(?:[^A-Za-z0-9+/=]|$))|(?-u:\b)PuTTY-User-Key-File-\d+:"#,
        ),
        fires: &[
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\n<paste your key here>",
            concat!("PuTTY-User-Key-", "File-3: ssh-ed25519"),
        ],
        passes: &[
            concat!("-----BEGIN OPENSSH PRIV", "ATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"),
            "-----BEGIN CERTIFICATE-----",
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake user@host",
        ],
        ..Rule::PLAIN
    },
    CRD020,
    CRD021,
    CRD022,
];

/// Found by the secret detector (`crate::secrets`): a rule of gitleaks' set for one service.
pub const CRD021: Rule = Rule {
    id: "CRD021",
    category: Category::CredentialExposure,
    severity: Severity::Critical,
    message: "Secret of a known service (gitleaks rule set)",
    explanation: "Detects a credential of one of the ~200 services gitleaks' default rule set knows (cloud, source hosting, payment, messaging, AI and SaaS tokens and keys), with that set's keywords, patterns, entropy thresholds and allowlists; the finding's message names the gitleaks rule. The rule set is the one `git skill` redacts output with, so what blocks a commit here is also never printed, sent to a model or committed by git-skill. Whoever reads the skill can use the credential. Instead, remove it, revoke it with the service, and have the skill read it from the user's environment or secret store.",
    matcher: Matcher::Analysis,
    fires: &[concat!(
        "export DOPPLER_TOKEN=dp.pt.",
        "q8Zr2Lw5Xt9Vb3Nm7Kp1Hc4Jd6Fg0Sa2We8Ry5Ui3Op7Lk"
    )],
    passes: &[
        "export DOPPLER_TOKEN=dp.pt.your-token-here",
        "Set DOPPLER_TOKEN in your environment before running the skill.",
    ],
    ..Rule::PLAIN
};

/// Found by the secret detector: gitleaks' generic rule, a random-looking value assigned to a
/// key, token, secret or password.
pub const CRD022: Rule = Rule {
    id: "CRD022",
    category: Category::CredentialExposure,
    severity: Severity::High,
    message: "Random-looking value assigned to a key, token, secret or password (gitleaks rule set)",
    explanation: "Detects, with gitleaks' generic rule, a value of 10 to 150 key characters whose entropy is above 3.5 bits a character, assigned (`=`, `:`, `=>`, `,`...) to a name that says access, auth, api, credential, key, password, secret or token, outside gitleaks' allowlists and its 1,400 stopwords. It catches secrets of services no specific rule knows, and hard-coded passwords; it is high, not critical, because documentation sometimes shows a realistic example. Instead, remove the value and read it from the environment or a secret store.",
    matcher: Matcher::Analysis,
    fires: &["db_password = \"Tr0ub4dor3horseBattery9\""],
    passes: &[
        "db_password = \"${DB_PASSWORD}\"",
        "api_key = \"YOUR_API_KEY\"",
        "max_tokens = 4096",
    ],
    ..Rule::PLAIN
};

/// On syntax trees (`guard::analysis`).
pub const CRD020: Rule = Rule {
    id: "CRD020",
    category: Category::CredentialExposure,
    severity: Severity::Critical,
    message: "Secrets of several sources gathered into one payload",
    explanation: "Detects, on the syntax tree of Python and JavaScript/TypeScript code, one dictionary, list or tuple holding secrets from two or more unrelated sources, serialised or encoded (`json.dumps`, `pickle`, `base64`, `urlencode`) (`os.environ[\"JWT_SECRET\"]` beside `os.environ[\"SENDGRID_API_KEY\"]`) or the whole environment (`json.dumps(dict(os.environ))`): a bundle made to be serialised and carried off, the first half of credential harvesting even when the sending is elsewhere. Keys of one vendor together (`AWS_ACCESS_KEY_ID` with `AWS_SECRET_ACCESS_KEY`) are how its client is configured and do not count. Instead, read each secret where it is used, and pass it only to its own client.",
    matcher: Matcher::Analysis,
    fires: &[
        "#!/usr/bin/env python3\nimport os, json\nsecrets = {\"JWT_SECRET\": os.environ[\"JWT_SECRET\"], \"SENDGRID_API_KEY\": os.environ[\"SENDGRID_API_KEY\"]}\npayload = json.dumps(secrets)\n",
        "#!/usr/bin/env python3\nimport os, json\nblob = json.dumps({\"env\": dict(os.environ)})\n",
        "#!/usr/bin/env node\nconst blob = JSON.stringify({ a: process.env.JWT_SECRET, b: process.env.SENDGRID_API_KEY });\n",
    ],
    passes: &[
        "#!/usr/bin/env python3\nimport os\ncfg = {\"api_key\": os.environ[\"OPENAI_API_KEY\"], \"model\": \"gpt\"}\n",
        "#!/usr/bin/env python3\nimport os\nkeys = [os.environ[\"AWS_ACCESS_KEY_ID\"], os.environ[\"AWS_SECRET_ACCESS_KEY\"]]\n",
        "#!/usr/bin/env python3\nimport os\ntenants = {\"prod\": {\"api_key\": os.environ[\"PROD_API_KEY\"]}, \"staging\": {\"api_key\": os.environ[\"STAGING_API_KEY\"]}}\n",
        "#!/usr/bin/env node\nconst cfg = { apiKey: process.env.OPENAI_API_KEY, model: \"x\" };\n",
    ],
    ..Rule::PLAIN
};
