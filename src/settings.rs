//! Which rules run and how serious they are: `--select`, `--ignore`,
//! `--severity`, and the same settings from an `agui-lint.toml`.
//!
//! ```toml
//! # agui-lint.toml
//! select = ["tool-result-without-call", "missing-field"]  # only these (optional)
//! ignore = ["unknown-field"]
//!
//! [severity]
//! tool-call-unknown-tool = "warning"
//!
//! [limits]
//! max-document-bytes = 1048576
//! ```
//!
//! `include = ["captures/**/*.json"]` and `exclude = ["captures/old/**"]`
//! (top level) shape a directory walk as `--include` and `--exclude` do,
//! and `[per-file-ignores]` maps a glob to the rules never reported for the
//! files it matches (`"legacy/**" = ["unknown-field"]`); its globs match a
//! file's path relative to the configuration file's directory, or the
//! file's name.
//!
//! `mask-values = true` (top level) masks the document's values out of
//! every finding, as `--mask-values` does (see [`crate::unstable::mask`]).
//! `protocol = "1.0"` (top level; `1.1`, `1.0`, `0` or `auto`) is the
//! version a document that declares none is judged as, as `--protocol` is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::client::Client;
use crate::diagnostic::{Diagnostic, Severity};
use crate::limits::{Limits, MAX_DEPTH_CAP};
use crate::mask;
use crate::protocol::{Protocol, ProtocolChoice};
use crate::rules;

/// The name of the configuration file looked up from the working directory
/// upward.
pub const CONFIG_FILE_NAME: &str = "agui-lint.toml";

/// Rule selection and severity overrides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// When set, only these rules are reported.
    #[serde(default)]
    select: Option<BTreeSet<String>>,
    /// Rules never reported.
    #[serde(default)]
    ignore: BTreeSet<String>,
    /// Severity per rule, replacing the rule's default.
    #[serde(default)]
    severity: BTreeMap<String, Severity>,
    /// Bounds on what one document may cost (`[limits]`).
    #[serde(default)]
    limits: Limits,
    /// Whether findings have the document's values masked (`mask-values`).
    #[serde(default, rename = "mask-values")]
    mask_values: bool,
    /// The version undeclared documents are judged as (`protocol`).
    #[serde(default, deserialize_with = "protocol_choice")]
    protocol: ProtocolChoice,
    /// The official client streams are seen through (`client`), if one
    /// was chosen; unset, @ag-ui/client 1.0.0 ([`Settings::client_profile`]).
    #[serde(default, deserialize_with = "client_profile")]
    client: Option<Client>,
    /// What a directory walk checks (`include`); empty: the known
    /// extensions. Read by the CLI's walk, not by the validator.
    #[serde(default)]
    include: Vec<String>,
    /// What a directory walk skips (`exclude`). Read by the CLI's walk.
    #[serde(default)]
    exclude: Vec<String>,
    /// Rules never reported for the files a glob matches
    /// (`[per-file-ignores]`). Applied to a check's documents by path.
    #[serde(default, rename = "per-file-ignores")]
    per_file_ignores: BTreeMap<String, BTreeSet<String>>,
    /// How every source holds its documents (`--input-format`), whatever
    /// its name says; `None`: told from its extension or its first bytes.
    #[serde(skip)]
    input_format: Option<crate::input::Layout>,
}

fn protocol_choice<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ProtocolChoice, D::Error> {
    let name = String::deserialize(d)?;
    name.parse().map_err(serde::de::Error::custom)
}

fn client_profile<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Client>, D::Error> {
    let name = String::deserialize(d)?;
    name.parse().map(Some).map_err(serde::de::Error::custom)
}

/// A setting that names no rule, or a configuration file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A rule name that is not registered.
    #[error("unknown rule '{name}'{hint}")]
    UnknownRule {
        /// The name as given.
        name: String,
        /// A " (did you mean ...?)" hint, or empty.
        hint: String,
    },
    /// `RULE=SEVERITY` given without `=` or with an unknown severity.
    #[error("invalid severity override '{0}' (expected RULE=error|warning|info)")]
    InvalidOverride(String),
    /// The configuration file could not be read.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl Settings {
    /// Reports only the rules in `names` (replacing any earlier selection).
    pub fn select<I, S>(mut self, names: I) -> Result<Self, SettingsError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let names = known(names)?;
        self.select = Some(names);
        Ok(self)
    }

    /// Never reports the rules in `names` (added to earlier ones).
    pub fn ignore<I, S>(mut self, names: I) -> Result<Self, SettingsError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.ignore.extend(known(names)?);
        Ok(self)
    }

    /// Reports `rule` with `severity` instead of its default.
    pub fn severity(mut self, rule: &str, severity: Severity) -> Result<Self, SettingsError> {
        let name = known([rule])?.into_iter().next().unwrap_or_default();
        self.severity.insert(name, severity);
        Ok(self)
    }

    /// Applies a `RULE=SEVERITY` override as given on the command line.
    pub fn severity_override(self, text: &str) -> Result<Self, SettingsError> {
        let invalid = || SettingsError::InvalidOverride(text.to_string());
        let (rule, level) = text.split_once('=').ok_or_else(invalid)?;
        let severity = Severity::from_name(level.trim()).ok_or_else(invalid)?;
        self.severity(rule.trim(), severity)
    }

    /// Parses the text of an `agui-lint.toml`.
    pub fn from_toml(text: &str, path: &Path) -> Result<Self, SettingsError> {
        let file_error = |message: String| SettingsError::File {
            path: path.to_path_buf(),
            message,
        };
        let parsed: Settings = toml::from_str(text).map_err(|e| file_error(e.to_string()))?;
        let names = parsed
            .select
            .iter()
            .flatten()
            .chain(&parsed.ignore)
            .chain(parsed.severity.keys())
            .chain(parsed.per_file_ignores.values().flatten());
        for name in names {
            known([name.as_str()]).map_err(|e| file_error(e.to_string()))?;
        }
        let limits = parsed.limits;
        Ok(parsed.with_limits(limits))
    }

    /// Reads the configuration file at `path`.
    pub fn load(path: &Path) -> Result<Self, SettingsError> {
        let text = std::fs::read_to_string(path).map_err(|e| SettingsError::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Settings::from_toml(&text, path)
    }

    /// Finds `agui-lint.toml` in `start` or the nearest folder above it.
    pub fn discover(start: &Path) -> Option<PathBuf> {
        start
            .ancestors()
            .map(|dir| dir.join(CONFIG_FILE_NAME))
            .find(|candidate| candidate.is_file())
    }

    /// The rules reported when only some are (`select`).
    pub fn selected(&self) -> Option<&BTreeSet<String>> {
        self.select.as_ref()
    }

    /// The rules never reported (`ignore`).
    pub fn ignored(&self) -> &BTreeSet<String> {
        &self.ignore
    }

    /// The severity overrides (`[severity]`).
    pub fn severities(&self) -> &BTreeMap<String, Severity> {
        &self.severity
    }

    /// How every source is read, when set (`--input-format`).
    pub fn input_format(&self) -> Option<crate::input::Layout> {
        self.input_format
    }

    /// Reads every source as `layout`, whatever its name or first bytes
    /// say (`--input-format`).
    #[must_use]
    pub fn with_input_format(mut self, layout: Option<crate::input::Layout>) -> Self {
        self.input_format = layout;
        self
    }

    /// The directory walk's `include` globs.
    pub fn include(&self) -> &[String] {
        &self.include
    }

    /// The directory walk's `exclude` globs.
    pub fn exclude(&self) -> &[String] {
        &self.exclude
    }

    /// Walks only the files `globs` match, replacing earlier ones (as
    /// `--include` does the configuration file's).
    #[must_use]
    pub fn with_include(mut self, globs: Vec<String>) -> Self {
        self.include = globs;
        self
    }

    /// Skips what `globs` match while walking, added to earlier ones.
    #[must_use]
    pub fn with_exclude(mut self, globs: impl IntoIterator<Item = String>) -> Self {
        self.exclude.extend(globs);
        self
    }

    /// The rules never reported for the files each glob matches.
    pub fn per_file_ignores(&self) -> &BTreeMap<String, BTreeSet<String>> {
        &self.per_file_ignores
    }

    /// Whether `rule` is reported at all.
    pub fn is_enabled(&self, rule: &str) -> bool {
        !self.ignore.contains(rule) && self.select.as_ref().is_none_or(|s| s.contains(rule))
    }

    /// The limits documents are checked within.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Checks documents within `limits`; a depth over 2,048
    /// ([`crate::MAX_DEPTH_CAP`]) is taken as 2,048.
    #[must_use]
    pub fn with_limits(mut self, mut limits: Limits) -> Self {
        limits.max_depth = limits.max_depth.min(MAX_DEPTH_CAP);
        self.limits = limits;
        self
    }

    /// Masks the document's values out of every finding when `mask` is
    /// true, so that findings can be logged without the request content:
    /// the quoted text and numbers of messages, help and related notes
    /// become `***`, while rules, severities, pointers and positions stay
    /// (the rules are in [`crate::unstable::mask`]).
    #[must_use]
    pub fn mask_values(mut self, mask: bool) -> Self {
        self.mask_values = mask;
        self
    }

    /// Whether findings have the document's values masked.
    pub fn masks_values(&self) -> bool {
        self.mask_values
    }

    /// Judges documents that declare no `protocolVersion` as `protocol`
    /// ([`ProtocolChoice::Auto`]: the newest version known). A document's
    /// own declaration always wins.
    #[must_use]
    pub fn protocol(mut self, protocol: ProtocolChoice) -> Self {
        self.protocol = protocol;
        self
    }

    /// The version documents that declare none are judged as.
    pub fn default_protocol(&self) -> Protocol {
        self.protocol.default_version()
    }

    /// The protocol setting as given (`auto` or a version).
    pub fn protocol_choice(&self) -> ProtocolChoice {
        self.protocol
    }

    /// Sees streams and requests through `client`: findings say what that
    /// official client does with them ([`Client`]).
    pub fn client(mut self, client: Client) -> Self {
        self.client = Some(client);
        self
    }

    /// The official client streams and requests are seen through: the one
    /// chosen, else the one every user has today, `@ag-ui/client` 1.0.0
    /// with a current peer.
    pub fn client_profile(&self) -> Client {
        self.client.unwrap_or(Client::V1_0_0)
    }

    /// The client chosen (`--client`, `client` in agui-lint.toml), if any.
    pub fn client_chosen(&self) -> Option<Client> {
        self.client
    }

    /// Drops the diagnostics of disabled rules, applies severity overrides
    /// and, when asked, masks the document's values.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        // Called for every document and event, most of which have nothing.
        if diagnostics.is_empty() {
            return;
        }
        diagnostics.retain(|d| self.is_enabled(&d.rule));
        for diagnostic in diagnostics {
            if let Some(severity) = self.severity.get(&diagnostic.rule) {
                diagnostic.severity = *severity;
            }
            if self.mask_values {
                mask::diagnostic(diagnostic);
            }
        }
    }
}

impl crate::findings::Policy for Settings {
    fn reports(&self, rule: &str) -> bool {
        self.is_enabled(rule)
    }

    fn severity_of(&self, rule: &str, severity: Severity) -> Severity {
        self.severity.get(rule).copied().unwrap_or(severity)
    }
}

/// The names, each checked against the registry.
fn known<I, S>(names: I) -> Result<BTreeSet<String>, SettingsError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    // `--select "a, b"` splits to "a" and " b": the space around a name,
    // as a list is commonly written (and as the Action's inputs are), is
    // not part of it.
    names
        .into_iter()
        .map(Into::into)
        .map(|name: String| name.trim().to_string())
        .map(|name| {
            if rules::rule(&name).is_some() {
                Ok(name)
            } else {
                let hint = rules::closest(&name)
                    .map(|best| format!(" (did you mean '{best}'?)"))
                    .unwrap_or_default();
                Err(SettingsError::UnknownRule { name, hint })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostics() -> Vec<Diagnostic> {
        vec![
            crate::rules::UNKNOWN_FIELD.diagnostic("/a", "a"),
            crate::rules::MISSING_FIELD.diagnostic("", "b"),
            Diagnostic::new(
                crate::rules::messages::EMPTY_ID.name,
                Severity::Warning,
                "/id",
                "c",
            ),
        ]
    }

    fn rules_of(settings: &Settings) -> Vec<(String, Severity)> {
        let mut found = diagnostics();
        settings.apply(&mut found);
        found.into_iter().map(|d| (d.rule, d.severity)).collect()
    }

    #[test]
    fn protocol_comes_from_the_config_and_refuses_unknown_versions() {
        let path = Path::new("agui-lint.toml");
        let settings = Settings::from_toml("protocol = \"1.0\"\n", path).unwrap();
        assert_eq!(settings.default_protocol(), Protocol::V1_0);
        let settings = Settings::from_toml("protocol = \"0.x\"\n", path).unwrap();
        assert_eq!(settings.default_protocol(), Protocol::V0);
        let settings = Settings::from_toml("protocol = \"auto\"\n", path).unwrap();
        assert_eq!(settings.default_protocol(), Protocol::NEWEST);
        assert_eq!(Settings::default().default_protocol(), Protocol::V1_1);
        let error = Settings::from_toml("protocol = \"2.0\"\n", path).unwrap_err();
        assert!(
            error.to_string().contains("unknown protocol version '2.0'"),
            "{error}"
        );
    }

    #[test]
    fn select_ignore_and_override() {
        let (empty_id, unknown_field) = (
            crate::rules::messages::EMPTY_ID.name,
            crate::rules::schema::UNKNOWN_FIELD.name,
        );
        let spaced = Settings::default()
            .select([format!(" {empty_id}"), format!("{unknown_field} ")])
            .unwrap();
        assert_eq!(
            spaced
                .selected()
                .map(|s| s.iter().cloned().collect::<Vec<_>>()),
            Some(vec![empty_id.to_string(), unknown_field.to_string()])
        );
        assert!(Settings::default().select([" "]).is_err());
        let settings = Settings::default()
            .ignore([crate::rules::schema::UNKNOWN_FIELD.name])
            .unwrap();
        assert_eq!(
            rules_of(&settings),
            [
                (
                    crate::rules::schema::MISSING_FIELD.name.into(),
                    Severity::Error
                ),
                (
                    crate::rules::messages::EMPTY_ID.name.into(),
                    Severity::Warning
                )
            ]
        );
        let settings = Settings::default()
            .select([
                crate::rules::messages::EMPTY_ID.name,
                crate::rules::schema::UNKNOWN_FIELD.name,
            ])
            .unwrap()
            .severity_override("empty-id=error")
            .unwrap();
        assert_eq!(
            rules_of(&settings),
            [
                (
                    crate::rules::schema::UNKNOWN_FIELD.name.into(),
                    Severity::Warning
                ),
                (
                    crate::rules::messages::EMPTY_ID.name.into(),
                    Severity::Error
                )
            ]
        );
    }

    #[test]
    fn unknown_names_are_refused_with_a_hint() {
        let error = Settings::default().ignore(["unknown-feild"]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown rule 'unknown-feild' (did you mean 'unknown-field'?)"
        );
        assert!(Settings::default()
            .severity_override(crate::rules::messages::EMPTY_ID.name)
            .is_err());
        assert!(Settings::default()
            .severity_override("empty-id=fatal")
            .is_err());
    }

    #[test]
    fn reads_a_config_file() {
        let text = "ignore = [\"unknown-field\"]\n[severity]\nempty-id = \"error\"\n";
        let settings = Settings::from_toml(text, Path::new("agui-lint.toml")).unwrap();
        assert_eq!(
            rules_of(&settings),
            [
                (
                    crate::rules::schema::MISSING_FIELD.name.into(),
                    Severity::Error
                ),
                (
                    crate::rules::messages::EMPTY_ID.name.into(),
                    Severity::Error
                )
            ]
        );
        let error = Settings::from_toml("ignore = [\"nope\"]", Path::new("x.toml")).unwrap_err();
        assert!(
            error.to_string().starts_with("x.toml: unknown rule 'nope'"),
            "{error}"
        );
        assert!(Settings::from_toml("colour = 1", Path::new("x.toml")).is_err());
    }

    #[test]
    fn the_walk_and_per_file_ignores_come_from_the_config_and_name_known_rules() {
        let text = "include = [\"*.jsonl\"]\nexclude = [\"old/**\"]\n\
                    [per-file-ignores]\n\"legacy/**\" = [\"unknown-field\"]\n";
        let settings = Settings::from_toml(text, Path::new("agui-lint.toml")).unwrap();
        assert_eq!(settings.include(), ["*.jsonl"]);
        assert_eq!(settings.exclude(), ["old/**"]);
        assert_eq!(
            settings.per_file_ignores()["legacy/**"],
            BTreeSet::from([crate::rules::schema::UNKNOWN_FIELD.name.to_string()])
        );
        let settings = settings
            .with_include(vec!["*.sse".into()])
            .with_exclude(["tmp".to_string()]);
        assert_eq!(settings.include(), ["*.sse"]);
        assert_eq!(settings.exclude(), ["old/**", "tmp"]);
        let error = Settings::from_toml(
            "[per-file-ignores]\n\"a/**\" = [\"unknown-feild\"]\n",
            Path::new("x.toml"),
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("did you mean 'unknown-field'"),
            "{error}"
        );
    }

    #[test]
    fn masking_keeps_rules_pointers_and_positions() {
        let settings = Settings::default().mask_values(true);
        assert!(settings.masks_values());
        let mut found = vec![crate::rules::INVALID_VALUE
            .diagnostic("/messages/0/role", "unknown role 'hunter2'")
            .with_help("did you mean 'assistant'?")
            .with_related("/messages/1", "tool call 'hunter2' made here")];
        found[0].location = Some(crate::Location { line: 3, column: 9 });
        settings.apply(&mut found);
        let d = &found[0];
        assert_eq!(d.message, "unknown role '***'");
        assert_eq!(d.help.as_deref(), Some("did you mean 'assistant'?"));
        assert_eq!(d.related[0].message, "tool call '***' made here");
        assert_eq!(
            (d.rule.as_str(), d.pointer.as_str(), d.location),
            (
                crate::rules::schema::INVALID_VALUE.name,
                "/messages/0/role",
                Some(crate::Location { line: 3, column: 9 })
            )
        );
        let from_file =
            Settings::from_toml("mask-values = true\n", Path::new("agui-lint.toml")).unwrap();
        assert!(from_file.masks_values());
        assert!(!Settings::default().masks_values());
    }
}
