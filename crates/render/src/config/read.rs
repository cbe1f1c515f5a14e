//! Reading the file: its sections in file order, each deserialized into its [`schema`]
//! struct. The first problem in file order is the one error: in a section, an unknown key
//! before a bad value, as each key is read on its own to find it when serde (which visits
//! keys in name order) reports one.

use super::check::expected;
use super::report::{section_keys, shown, sorted, Cx, Entry};
use super::schema::{CameraIn, FeaturesIn, GraphIn, RenderIn, WindowIn};
use super::*;
use toml::de::{DeTable, DeValue};

/// The sections of a file, as read.
#[derive(Default)]
pub(super) struct Sections {
    pub render: RenderIn,
    pub window: WindowIn,
    pub camera: CameraIn,
    pub features: FeaturesIn,
    pub mobile: FeaturesIn,
    pub graph: GraphIn,
}

/// Reads `cx`'s text: TOML syntax, sections, keys and values (not checks across keys other
/// than the camera's).
pub(super) fn sections(cx: &Cx) -> Result<Sections, ConfigError> {
    let root = DeTable::parse(cx.text).map_err(|e| cx.syntax(&e))?;
    let mut out = Sections::default();
    for (key, value) in sorted(root.get_ref()) {
        let name: &str = key.get_ref();
        let Some(keys) = section_keys(name) else {
            let what = if matches!(value.get_ref(), DeValue::Table(_)) {
                format!("unknown section [{}]", shown(name))
            } else {
                format!("key {} outside any section", shown(name))
            };
            return Err(cx.err(
                key.span().start,
                format!("{what}; allowed sections: {}", SECTIONS.join(", ")),
            ));
        };
        let DeValue::Table(table) = value.get_ref() else {
            return Err(cx.err(
                value.span().start,
                format!(
                    "{name} = {}: expected a section, written [{name}] on a line of its own",
                    cx.source(value.span())
                ),
            ));
        };
        let section = Section {
            cx,
            name,
            keys,
            table,
            span: value.span(),
        };
        match name {
            "render" => out.render = section.read()?,
            "window" => out.window = section.read()?,
            "camera" => {
                out.camera = section.read()?;
                check_camera(cx, &out.camera)?;
            }
            "features" => out.features = section.read()?,
            "mobile" => out.mobile = section.read()?,
            _ => out.graph = section.read()?,
        }
    }
    Ok(out)
}

/// The camera looks at a point other than its position.
fn check_camera(cx: &Cx, camera: &CameraIn) -> Result<(), ConfigError> {
    match (&camera.position, &camera.target) {
        (Some(p), Some(t)) if p.0 == t.get_ref().0 => Err(cx.bad(
            "camera",
            "target",
            t.span(),
            "a point other than the position",
        )),
        _ => Ok(()),
    }
}

/// One section of the file.
struct Section<'a, 'i> {
    cx: &'a Cx<'a>,
    name: &'a str,
    keys: &'static [&'static str],
    table: &'a DeTable<'i>,
    span: std::ops::Range<usize>,
}

impl<'i> Section<'_, 'i> {
    /// The section as `T`, or its first problem in file order.
    fn read<T: Deserialize<'i>>(&self) -> Result<T, ConfigError> {
        let whole =
            toml::de::Deserializer::from(Spanned::new(self.span.clone(), self.table.clone()));
        T::deserialize(whole).map_err(|e| self.first_problem::<T>(&e))
    }

    /// An unknown key, else a bad value, the first in file order (each key read alone), else
    /// `e` as it is.
    fn first_problem<T: Deserialize<'i>>(&self, e: &toml::de::Error) -> ConfigError {
        let entries = sorted(self.table);
        let alone = |(key, value): &Entry<'_, 'i>| {
            let mut one = DeTable::new();
            one.insert((*key).clone(), (*value).clone());
            T::deserialize(toml::de::Deserializer::from(Spanned::new(
                self.span.clone(),
                one,
            )))
            .err()
        };
        let problems: Vec<(&Entry<'_, 'i>, toml::de::Error)> = entries
            .iter()
            .filter_map(|entry| alone(entry).map(|e| (entry, e)))
            .collect();
        let unknown = problems
            .iter()
            .find(|(_, e)| e.message().starts_with("unknown field"));
        match (unknown, problems.first()) {
            (Some(((key, _), _)), _) => self.cx.err(
                key.span().start,
                format!(
                    "unknown key [{}] {}; allowed: {}",
                    self.name,
                    shown(key.get_ref()),
                    self.keys.join(", ")
                ),
            ),
            (None, Some(((key, value), _))) => {
                let key: &str = key.get_ref();
                self.cx
                    .bad(self.name, key, value.span(), &expected(self.name, key))
            }
            (None, None) => self.cx.syntax(e),
        }
    }
}
