//! A plugin's entries, each checked against the key table.

use {
    super::{
        error::ConfigError,
        keys::{ConfigKey, KeyFamily, Plugin, Value},
    },
    std::collections::BTreeMap,
};

/// Checked entries: every key known, every value valid for its key.
#[derive(Debug)]
pub struct Settings<'a> {
    values: BTreeMap<ConfigKey, Value<'a>>,
    /// Members of key families, by id and suffix.
    members: BTreeMap<(&'a str, &'static str), &'a str>,
}

impl<'a> Settings<'a> {
    /// Checks every entry against the table, whatever the backend: a key
    /// `plugin` does not accept is refused, and so is a value
    /// outside its key's rule. A blank value is unset; the last of repeated
    /// keys wins.
    ///
    /// # Errors
    /// [`ConfigError::Unknown`] or [`ConfigError::Invalid`] for the first bad
    /// entry.
    pub fn check(plugin: Plugin, entries: &'a [(String, String)]) -> Result<Self, ConfigError> {
        let mut values = BTreeMap::new();
        let mut members = BTreeMap::new();
        for (name, raw) in entries {
            if plugin == Plugin::StorageManager {
                if let Some((_, id, suffix)) = KeyFamily::parse(name) {
                    let text = raw.trim();
                    if text.is_empty() {
                        members.remove(&(id, suffix));
                    } else {
                        members.insert((id, suffix), text);
                    }
                    continue;
                }
            }
            let key = ConfigKey::of_plugin(plugin, name)
                .ok_or_else(|| ConfigError::Unknown { key: name.clone() })?;
            let text = raw.trim();
            if text.is_empty() {
                values.remove(&key);
                continue;
            }
            let value = key
                .parse(text)
                .ok_or_else(|| ConfigError::invalid(key, text))?;
            values.insert(key, value);
        }
        Ok(Self { values, members })
    }

    /// The value of the family member `<prefix><id><suffix>`, if set.
    #[must_use]
    pub fn member(&self, id: &str, suffix: &str) -> Option<&'a str> {
        self.members
            .iter()
            .find(|((member_id, member_suffix), _)| *member_id == id && *member_suffix == suffix)
            .map(|(_, value)| *value)
    }

    /// The ids of every family member set, each once.
    pub fn member_ids(&self) -> impl Iterator<Item = &'a str> + '_ {
        let mut ids: Vec<&'a str> = self.members.keys().map(|(id, _)| *id).collect();
        ids.dedup();
        ids.into_iter()
    }

    /// The value of `key`, else its default.
    fn value(&self, key: ConfigKey) -> Option<Value<'a>> {
        self.values.get(&key).copied().or(key.default_value())
    }

    /// The text of a text or secret key; `None` when unset (or `key` is not
    /// a text key).
    #[must_use]
    pub fn text(&self, key: ConfigKey) -> Option<&'a str> {
        match self.value(key) {
            Some(Value::Text(text)) => Some(text),
            _ => None,
        }
    }

    /// The text of `key`, which `backend` requires.
    ///
    /// # Errors
    /// [`ConfigError::Missing`] when it is unset.
    pub fn required(&self, key: ConfigKey, backend: &'static str) -> Result<&'a str, ConfigError> {
        self.text(key).ok_or(ConfigError::Missing { key, backend })
    }

    /// The value of a boolean key (`false` if `key` is not one).
    #[must_use]
    pub fn flag(&self, key: ConfigKey) -> bool {
        matches!(self.value(key), Some(Value::Boolean(true)))
    }

    /// The value of an integer key as a `T`.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] when it does not fit a `T` (or `key` is not
    /// an integer key).
    pub fn integer<T: TryFrom<i64>>(&self, key: ConfigKey) -> Result<T, ConfigError> {
        match self.value(key) {
            Some(Value::Integer(n)) => {
                T::try_from(n).map_err(|_| ConfigError::invalid(key, &n.to_string()))
            }
            _ => Err(ConfigError::invalid(key, "")),
        }
    }
}
