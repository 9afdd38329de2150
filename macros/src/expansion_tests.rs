//! What `#[op]` and `#[derive(Validate)]` emit for representative declarations, pretty-printed
//! and kept as snapshots under `macros/snapshots/`, so a change to the generated code shows up
//! as a reviewable diff. Whether the output compiles and behaves is proved elsewhere: every
//! operation of the service is expanded by these macros, and `crates/contract/tests/compile_fail.rs`
//! holds the declarations that must not compile, with their exact messages.

use proc_macro2::TokenStream;
use quote::quote;

fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("the expansion is Rust");
    prettyplease::unparse(&file)
}

fn snapshot(name: &str, attr: TokenStream, item: TokenStream) {
    let code = pretty(crate::op_expand::expand(attr, item));
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!(name, code);
    });
}

/// A JSON body in, JSON out: the common case, with the fields a recipe's pipe connects.
#[test]
fn body_in_json_out() {
    snapshot(
        "op_body_json",
        quote!(post "/v1/base64/encode" as base64Encode, tag = TextAndData, pipe(text -> encoded),
               example(typical, {"text": "Hello"}),
               example(empty, {"text": ""})),
        quote! {
            /// Encode text as Base64.
            ///
            /// The UTF-8 bytes of `text`.
            async fn base64_encode(input: Base64EncodeInput) -> Result<Base64EncodeOutput, ApiError> {
                todo!()
            }
        },
    );
}

/// One operation, a POST form and a GET form: the body route and the query route share the
/// descriptor, and heavy work goes to the CPU pool.
#[test]
fn two_routes_image_on_the_cpu_pool() {
    snapshot(
        "op_two_routes_image",
        quote!(post "/v1/qr/generate" as qrGenerate,
               get "/v1/qr/generate" as qrGenerateGet,
               tag = Images, output = image, cpu,
               rejects = "text too long for the error-correction level",
               example(svg, {"text": "https://example.com"}),
               example(missing_text, {}, status = 400)),
        quote! {
            /// Generate a QR code.
            async fn qr_generate(input: QrInput) -> Result<Image, ApiError> {
                todo!()
            }
        },
    );
}

/// A stored resource read by path parameter and through a POST form, with the context.
#[test]
fn path_parameters_context_and_errors() {
    snapshot(
        "op_path_ctx_errors",
        quote!(get "/v1/paste/{id}" as getPaste,
               post "/v1/paste/get" as getPastePost,
               tag = Storage,
               uses(store), errors(NOT_FOUND),
               example(unknown, {"id": "AbCd1234"}, status = 404)),
        quote! {
            /// Read a paste.
            async fn get_paste(input: PasteIdInput, ctx: &Ctx) -> Result<PasteOutput, ApiError> {
                todo!()
            }
        },
    );
}

/// The raw request, for receive-anything routes, with a body limit of its own.
#[test]
fn raw_input() {
    snapshot(
        "op_raw",
        quote!(post "/v1/webhook/inbox/{id}/receive" as receiveWebhook, tag = Storage, input = raw,
               body_limit = 2097152, errors(INBOX_NOT_FOUND),
               example(unknown, {"id": "AAAA"}, status = 404)),
        quote! {
            /// Receive a webhook.
            async fn receive_webhook(input: Received, ctx: &Ctx) -> Result<Receipt, ApiError> {
                todo!()
            }
        },
    );
}

/// No input at all, a random answer redacted in snapshots, and a redirect.
#[test]
fn no_input_and_redirect() {
    snapshot(
        "op_no_input",
        quote!(post "/v1/uuid/v4" as uuidV4, tag = DeveloperUtilities, redact(".data.uuid"),
               example(typical, {})),
        quote! {
            /// Generate a UUID v4.
            async fn uuid_v4() -> Result<UuidOutput, ApiError> {
                todo!()
            }
        },
    );
    snapshot(
        "op_redirect",
        quote!(get "/v1/short-url/r/{slug}" as followShortUrl, tag = Storage, output = redirect,
               example(unknown, {"slug": "nothing"}, status = 404)),
        quote! {
            /// Follow a short link.
            async fn follow(input: SlugInput, ctx: &Ctx) -> Result<Redirect, ApiError> {
                todo!()
            }
        },
    );
}

/// A declaration with mistakes: the function is kept as written, every mistake is one
/// `compile_error!`, and a stand-in descriptor keeps the registry compiling.
#[test]
fn mistakes_keep_the_function() {
    snapshot(
        "op_mistakes",
        quote!(post "/v1/thing" as do_thing, tag = Imagse, tag = Images, colour = "red",
               example(a, {})),
        quote! {
            /// Does a thing.
            async fn thing(input: In) -> Result<Out, ApiError> {
                todo!()
            }
        },
    );
}

#[test]
fn validate_derive() {
    let code = pretty(
        crate::validate_derive::expand(quote! {
            #[serde(rename_all = "camelCase")]
            #[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
            struct QrInput {
                #[schemars(length(min = 1, max = 2953))]
                text: String,
                #[schemars(range(min = 50, max = 2000))]
                size: u32,
                #[schemars(pattern("^#[0-9a-fA-F]{6}$"))]
                dark_color: String,
                #[serde(rename = "ecc")]
                level: Level,
                #[serde(rename = "bg_color", alias = "bgColor")]
                bg_color: String,
            }
        })
        .expect("expands"),
    );
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!("validate_struct", code);
    });
}
