//! Content parts: what a person sends in a user message and what a tool
//! returns in a tool message, and the sources of their media.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One part of a message body, told apart by `type`. The same parts travel
/// into the model in a user message and back out in a tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
#[schemars(extend("discriminator" = {"propertyName": "type"}))]
pub enum ContentPart {
    /// A text part.
    Text(TextPart),
    /// An image.
    Image(ImagePart),
    /// An audio clip.
    Audio(AudioPart),
    /// A video.
    Video(VideoPart),
    /// A document such as a PDF.
    Document(DocumentPart),
}

/// A text part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct TextPart {
    /// Identifies this part within its message; reserved, nothing reads it yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The text.
    pub text: String,
    /// Extra information about this part (a search hit's source and title,
    /// for example): any JSON value but `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::any_but_null")]
    pub metadata: Option<Value>,
}

macro_rules! media_part {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[schemars(deny_unknown_fields)]
        pub struct $name {
            /// Identifies this part within its message; reserved, nothing
            /// reads it yet.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub id: Option<String>,
            /// Where the media comes from: inline data, a URL or a
            /// provider's file.
            pub source: PartSource,
            /// Extra information about the media: any JSON value but `null`
            /// (the SDKs declare it `unknown`, so it need not be an object).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(schema_with = "super::any_but_null")]
            pub metadata: Option<Value>,
        }
    };
}

media_part!(
    /// An image part.
    ImagePart
);
media_part!(
    /// An audio part.
    AudioPart
);
media_part!(
    /// A video part.
    VideoPart
);
media_part!(
    /// A document part (for example a PDF).
    DocumentPart
);

/// Where a media part's bytes come from, told apart by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
#[schemars(extend("discriminator" = {"propertyName": "type"}))]
pub enum PartSource {
    /// The media inline, base64-encoded.
    Data(DataSource),
    /// The media at a URL.
    Url(UrlSource),
    /// A file held by a provider, by its identifier.
    File(FileSource),
}

/// Media carried inline as base64 data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct DataSource {
    /// The media, base64-encoded.
    pub value: String,
    /// MIME type of the media, such as `image/png`.
    pub mime_type: String,
}

/// Media referenced by URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct UrlSource {
    /// The URL of the media (`http`, `https` or `data`).
    pub value: String,
    /// MIME type of the media, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// A file a provider holds, referred to by the provider's identifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct FileSource {
    /// The provider's identifier of the file.
    pub value: String,
    /// Which provider holds the file, when it matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// MIME type of the file, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}
