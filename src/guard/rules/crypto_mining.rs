//! Crypto mining: using the user's machine to mine for someone else.

use crate::guard::rule::{Category, Matcher, Rule, Severity};

pub const RULES: &[Rule] = &[
    Rule {
        id: "MIN001",
        category: Category::CryptoMining,
        severity: Severity::Critical,
        message: "Cryptocurrency miner program",
        explanation: "Detects the names of common miners (XMRig, xmr-stak, cpuminer, cgminer, ethminer, lolMiner, NBMiner, GMiner, SRBMiner) and in-browser miners such as CoinHive. A skill that runs a miner burns the user's CPU, power and cloud bill for someone else. Instead, there is no place for mining in a skill.",
        matcher: Matcher::Text(
            r#"(?i)\b(?:xmrig(?:-cuda|-opencl|-proxy)?|xmr-stak(?:-rx)?|cpuminer(?:-multi|-opt)?|minerd|cgminer|bfgminer|ethminer|nbminer|lolminer|phoenixminer|nanominer|teamredminer|srbminer(?:-multi)?|gminer|ccminer|coinhive|coin-hive|cryptoloot)\b"#,
        ),
        fires: &[
            "xmrig --url stratum+tcp://pool:3333",
            "./cpuminer-opt -a yescrypt -o pool -u wallet",
            "<script src=\"https://coinhive.com/lib/coinhive.min.js\"></script>",
        ],
        passes: &[
            "Data mining with pandas",
            "Minecraft server setup",
            "undermine the assumption",
        ],
    },
    Rule {
        id: "MIN002",
        category: Category::CryptoMining,
        severity: Severity::Critical,
        message: "Mining pool stratum URL",
        explanation: "Detects `stratum+tcp://`, `stratum+ssl://` and related URLs, the protocol miners use to talk to a pool. Its presence means the skill connects a miner to a pool. Instead, there is no place for mining in a skill.",
        matcher: Matcher::Text(r#"(?i)\bstratum\d?\+(?:tcp|ssl|tls|ws)://"#),
        fires: &[
            "xmrig --url stratum+tcp://pool:3333",
            "\"url\": \"stratum+ssl://gulf.moneroocean.stream:20128\"",
        ],
        passes: &[
            "The stratum layer of the platform",
            "https://stratum.example.com/docs",
        ],
    },
    Rule {
        id: "MIN003",
        category: Category::CryptoMining,
        severity: Severity::Critical,
        message: "Known mining pool domain",
        explanation: "Detects domains of public mining pools (supportxmr, nanopool, 2miners, f2pool, nicehash, moneroocean, hashvault, unmineable, herominers, c3pool, ethermine and others). Connecting to them only makes sense for a miner. Instead, there is no place for mining in a skill.",
        matcher: Matcher::Text(
            r#"(?i)\b(?:[\w-]+\.)*(?:supportxmr|minexmr|nanopool|2miners|f2pool|nicehash|moneroocean|hashvault|unmineable|herominers|c3pool|ethermine|viabtc|antpool|miningpoolhub|zergpool|prohashing)\.(?:com|org|net|pro|io|ca|stream)\b"#,
        ),
        fires: &[
            "-o pool.supportxmr.com:443",
            "gulf.moneroocean.stream:10128",
            "xmr-eu1.nanopool.org:14433",
        ],
        passes: &[
            "connection pool settings",
            "https://pool.ntp.org",
        ],
    },
    Rule {
        id: "MIN004",
        category: Category::CryptoMining,
        severity: Severity::High,
        message: "Miner configuration option",
        explanation: "Detects options that only miners take: `--donate-level`, `--cpu-max-threads-hint`, `--randomx-*`, a mining algorithm such as `rx/0`, `cryptonight`, `kawpow` or `ethash` given with `-a`/`--algo`, and `donate-level` in a JSON config. They identify a miner even when its binary is renamed. Instead, there is no place for mining in a skill.",
        matcher: Matcher::Text(
            r#"(?i)--donate-level\b|--cpu-max-threads-hint\b|--randomx-[\w-]+|\s-a\s+(?:rx/0|rx/wow|cn/r|cryptonight|randomx|kawpow|ethash|autolykos2?)\b|["']donate-level["']\s*:|--(?:coin|algo)\s*[= ]\s*(?:monero|xmr|rx/0|randomx|kawpow|ethash)\b"#,
        ),
        fires: &[
            "./svc --donate-level 1 -o 203.0.113.5:443 -u 4Awallet",
            "./helper -a rx/0 -o pool:443",
            "\"donate-level\": 0,",
        ],
        passes: &[
            "ls -a /tmp",
            "--level debug",
        ],
    },
];
