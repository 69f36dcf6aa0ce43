//! A list of a page's views that the template engine reads an item at a
//! time: serialized for minijinja, it is an object whose items are
//! converted when the template reaches them (and dropped after), rather
//! than all at once before the page is written. A capture's tens of
//! thousands of runs, events and findings never sit in the engine's
//! values together. Serialized for anything else, it is the list.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use minijinja::value::{Enumerator, Object, ObjectRepr, Serde, Value};
use serde::{Serialize, Serializer};

/// A list read an item at a time by the template.
pub(crate) struct Lazy<T>(Arc<Vec<T>>);

impl<T> Lazy<T> {
    /// The list `items`.
    pub(crate) fn new(items: Vec<T>) -> Lazy<T> {
        Lazy(Arc::new(items))
    }
}

impl<T> Default for Lazy<T> {
    fn default() -> Self {
        Lazy::new(Vec::new())
    }
}

impl<T> Deref for Lazy<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T: fmt::Debug> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Serialize + fmt::Debug + Send + Sync + 'static> Serialize for Lazy<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if minijinja::value::serializing_for_value() {
            Value::from_object(Items(Arc::clone(&self.0))).serialize(serializer)
        } else {
            self.0.serialize(serializer)
        }
    }
}

/// The engine's view of a [`Lazy`] list.
struct Items<T>(Arc<Vec<T>>);

impl<T: fmt::Debug> fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{} item(s)]", self.0.len())
    }
}

impl<T: Serialize + fmt::Debug + Send + Sync + 'static> Object for Items<T> {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let item = self.0.get(key.as_usize()?)?;
        Some(Value::from(Serde(item)))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_reads_it_as_the_list_and_json_writes_the_list() {
        #[derive(Debug, Serialize)]
        struct Item {
            name: &'static str,
            drawn: bool,
        }
        #[derive(Serialize)]
        struct Page {
            items: Lazy<Item>,
        }
        let page = Page {
            items: Lazy::new(vec![
                Item {
                    name: "a",
                    drawn: true,
                },
                Item {
                    name: "b",
                    drawn: false,
                },
            ]),
        };
        let mut env = minijinja::Environment::new();
        env.add_template(
            "t",
            "{{ items|length }}:{% for i in items if not i.drawn %}{{ i.name }}{% endfor %}:{{ items[0].name }}:{{ items|tojson }}",
        )
        .expect("template");
        let text = env
            .get_template("t")
            .expect("t")
            .render(Value::from(Serde(&page)))
            .expect("render");
        assert_eq!(
            text,
            "2:b:a:[{\"name\": \"a\", \"drawn\": true}, {\"name\": \"b\", \"drawn\": false}]"
        );
        assert_eq!(
            serde_json::to_string(&page).expect("json"),
            "{\"items\":[{\"name\":\"a\",\"drawn\":true},{\"name\":\"b\",\"drawn\":false}]}"
        );
    }
}
