//! Multimodal user input: content parts and the sources of their media.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One fragment of multimodal user input, told apart by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
#[schemars(extend("discriminator" = {"propertyName": "type"}))]
pub enum InputContent {
    /// A text fragment.
    Text(TextInputContent),
    /// An image.
    Image(ImageInputContent),
    /// An audio clip.
    Audio(AudioInputContent),
    /// A video.
    Video(VideoInputContent),
    /// A document such as a PDF.
    Document(DocumentInputContent),
}

/// A text fragment of user input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct TextInputContent {
    /// The text.
    pub text: String,
}

macro_rules! media_content {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[schemars(deny_unknown_fields)]
        pub struct $name {
            /// Where the media comes from: inline data or a URL.
            pub source: InputContentSource,
            /// Free-form metadata about the media; any JSON value, `null` included.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub metadata: Option<Value>,
        }
    };
}

media_content!(
    /// An image in user input.
    ImageInputContent
);
media_content!(
    /// An audio clip in user input.
    AudioInputContent
);
media_content!(
    /// A video in user input.
    VideoInputContent
);
media_content!(
    /// A document (for example a PDF) in user input.
    DocumentInputContent
);

/// Where a media part's bytes come from, told apart by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
#[schemars(extend("discriminator" = {"propertyName": "type"}))]
pub enum InputContentSource {
    /// The media inline, base64-encoded.
    Data(InputContentDataSource),
    /// The media at a URL.
    Url(InputContentUrlSource),
}

/// Media carried inline as base64 data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct InputContentDataSource {
    /// The media, base64-encoded.
    pub value: String,
    /// MIME type of the media, such as `image/png`.
    pub mime_type: String,
}

/// Media referenced by URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct InputContentUrlSource {
    /// The URL of the media (`http`, `https` or `data`).
    pub value: String,
    /// MIME type of the media, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}
