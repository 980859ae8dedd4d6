//! `web_fetch` and `web_search`. Fetched text is wrapped as untrusted data: a page may contain
//! instructions aimed at the model, and the model must read them as content, not orders.

use crate::error::{ToolError, ToolResult};
use futures_util::StreamExt as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

mod paging;

/// Characters of a page's text in one result, by default and at most (see [`paging`]).
pub const DEFAULT_MAX_LENGTH: usize = paging::MAX_LENGTH;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FetchFormat {
    /// Markdown for HTML, pretty JSON for JSON, text as is.
    #[default]
    Auto,
    Markdown,
    Raw,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchArgs {
    /// http or https URL.
    pub url: String,
    /// GET (default), POST, PUT, PATCH, DELETE or HEAD.
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub headers: Option<BTreeMap<String, String>>,
    /// Query parameters added to the URL.
    #[serde(default)]
    pub query: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub format: FetchFormat,
    /// RFC 9535 JSONPath selecting part of a JSON response, e.g. `$.items[*].name`.
    #[serde(default)]
    pub jsonpath: Option<String>,
    /// Characters of text returned at most: 30,000, also the default (text in wide
    /// characters such as Chinese gets fewer, to fit the same space). A longer text shows its
    /// start and end, with a marker saying what was left out between them and where the whole
    /// text is saved for read_file and search_codebase.
    #[serde(default)]
    pub max_length: Option<usize>,
    /// Where to start in the page's text (after conversion to Markdown or pretty JSON), in
    /// characters from 0: returns `max_length` characters from there and says which part of
    /// the whole they are and where the next part starts. Leave it out to get the start and
    /// the end of a long text.
    #[serde(default)]
    pub offset: Option<usize>,
}

/// Limits and where full bodies go.
#[derive(Debug, Clone)]
pub struct WebConfig {
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub max_redirects: usize,
    pub max_body_bytes: usize,
    pub output_dir: PathBuf,
    pub search: Option<SearchProvider>,
}

impl WebConfig {
    pub fn new(output_dir: PathBuf) -> Self {
        WebConfig {
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_redirects: 5,
            max_body_bytes: 10 * 1024 * 1024,
            output_dir,
            search: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FetchResult {
    pub url: String,
    pub status: u16,
    pub content_type: String,
    pub text: String,
    pub total_chars: usize,
    /// Whether `text` is less than the whole (which is then in `saved_to`).
    pub cut: bool,
    pub saved_to: Option<PathBuf>,
    /// Characters start..end of the whole in `text`, when `offset` asked for a range.
    pub range: Option<(usize, usize)>,
    /// An image the page is, for the engine to attach when the model takes images.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<FetchedFile>,
    /// Where that image was saved among the session's fetched files, for the window to show
    /// it on the call's card (the person sees what the model saw).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture_saved: Option<PathBuf>,
    /// A PDF the page is (its text is `text`), for the engine to attach when the model takes
    /// files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<FetchedFile>,
}

/// A file a fetch returned (an image, a PDF), for the model itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FetchedFile {
    pub mime: String,
    pub data_base64: String,
}

/// One request of a fetch (the first, or a redirect), as the gate judges it.
pub struct Hop<'a> {
    pub url: &'a str,
    pub method: &'a str,
    /// The addresses the host was looked up to; the request goes to these and no others.
    pub addrs: &'a [IpAddr],
}

/// Judges a redirect before it is followed: `Err` says why it is not (the policy's words).
pub type HopGate = Arc<dyn Fn(&Hop<'_>) -> Result<(), String> + Send + Sync>;

/// What the engine decided about one fetch beyond its arguments.
#[derive(Clone, Default)]
pub struct FetchContext {
    /// The addresses the first host was judged with: the first request goes there, so a
    /// name cannot point somewhere else between the judgement and the connection.
    pub addrs: Vec<IpAddr>,
    /// Judges every redirect; without one, redirects are not followed.
    pub gate: Option<HopGate>,
}

/// A client that connects to `addrs` for `host` and follows no redirect by itself.
fn client(
    config: &WebConfig,
    host: &str,
    addrs: &[IpAddr],
    port: u16,
) -> ToolResult<reqwest::Client> {
    // The system's certificate store (a corporate CA) and, for machines without one, the
    // bundled Mozilla roots: the same trust as the model clients.
    let bundled: Vec<reqwest::Certificate> = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
        .collect();
    let mut b = reqwest::Client::builder()
        .timeout(config.timeout)
        .connect_timeout(config.connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .tls_certs_merge(bundled)
        .user_agent(concat!("Tandem/", env!("CARGO_PKG_VERSION")));
    if host.parse::<IpAddr>().is_err() && !addrs.is_empty() {
        let sockets: Vec<SocketAddr> = addrs.iter().map(|ip| SocketAddr::new(*ip, port)).collect();
        b = b.resolve_to_addrs(host, &sockets);
    }
    b.build()
        .map_err(|e| ToolError::InvalidArgument(format!("the HTTP client could not start: {e}")))
}

/// The host of an http(s) URL without brackets, and its port.
fn host_port(url: &reqwest::Url) -> ToolResult<(String, u16)> {
    let host = url
        .host_str()
        .ok_or_else(|| ToolError::InvalidArgument(format!("`{url}` names no host")))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = url.port_or_known_default().unwrap_or(80);
    Ok((host, port))
}

/// Looks a host up once (an address is its own answer).
pub async fn resolve_host(host: &str, port: u16) -> Result<Vec<IpAddr>, String> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![ip]);
    }
    let found = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::net::lookup_host((host, port)),
    )
    .await
    .map_err(|_| format!("looking up {host} timed out"))?
    .map_err(|e| format!("{host} could not be found ({e}); check the address"))?;
    let mut ips: Vec<IpAddr> = found.map(|a| a.ip()).collect();
    ips.dedup();
    if ips.is_empty() {
        return Err(format!("{host} has no address"));
    }
    Ok(ips)
}

/// The host and port a URL the model gave would be looked up with, for judging it first.
pub fn fetch_host(url: &str) -> Option<(String, u16)> {
    let parsed = reqwest::Url::parse(url).ok()?;
    host_port(&parsed).ok()
}

fn http_error(url: &str, e: reqwest::Error) -> ToolError {
    let why = if e.is_timeout() {
        "it timed out; try again later or a smaller page".to_string()
    } else if e.is_redirect() {
        "it redirected too many times".to_string()
    } else if e.is_connect() {
        "the server could not be reached; check the address".to_string()
    } else {
        e.to_string()
    };
    ToolError::InvalidArgument(format!("fetching {url} failed: {why}"))
}

/// What makes a fetch impossible before it is sent: checked before anyone is asked to approve
/// it, and again when it runs.
pub fn check_fetch(args: &WebFetchArgs) -> ToolResult<()> {
    request_line(args)?;
    if let Some(path) = &args.jsonpath {
        json_path(path)?;
    }
    for name in args.headers.iter().flat_map(BTreeMap::keys) {
        if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(ToolError::InvalidArgument(format!(
                "`{name}` is not a valid header name; use letters, digits and `-`"
            )));
        }
    }
    for (name, value) in args.headers.iter().flatten() {
        if reqwest::header::HeaderValue::from_str(value).is_err() {
            return Err(ToolError::InvalidArgument(format!(
                "the value of the header `{name}` cannot be sent (it holds a line break or a control character); remove them"
            )));
        }
    }
    Ok(())
}

/// The URL (with the query added) and the method a fetch sends.
fn request_line(args: &WebFetchArgs) -> ToolResult<(reqwest::Url, reqwest::Method)> {
    let mut url = reqwest::Url::parse(&args.url).map_err(|e| {
        ToolError::InvalidArgument(format!("`{}` is not a valid URL ({e})", args.url))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::InvalidArgument(format!(
            "only http and https URLs can be fetched, not `{}:`",
            url.scheme()
        )));
    }
    if let Some(q) = &args.query {
        url.query_pairs_mut().extend_pairs(q.iter());
    }
    let method = args.method.as_deref().unwrap_or("GET").to_ascii_uppercase();
    let method = reqwest::Method::from_bytes(method.as_bytes())
        .ok()
        .filter(|m| ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"].contains(&m.as_str()))
        .ok_or_else(|| {
            ToolError::InvalidArgument(format!(
                "method `{method}` is not supported; use GET, POST, PUT, PATCH, DELETE or HEAD"
            ))
        })?;
    Ok((url, method))
}

fn json_path(path: &str) -> ToolResult<serde_json_path::JsonPath> {
    serde_json_path::JsonPath::parse(path).map_err(|e| {
        ToolError::InvalidArgument(format!(
            "`{path}` is not a valid JSONPath ({e}); e.g. `$.items[*].name`"
        ))
    })
}

pub async fn web_fetch(
    config: &WebConfig,
    args: &WebFetchArgs,
    ctx: &FetchContext,
) -> ToolResult<FetchResult> {
    let (url, method) = request_line(args)?;
    let resp = follow(config, ctx, url, method, args).await?;
    let status = resp.status();
    let final_url = resp.url().to_string();
    let content_type = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if resp
        .content_length()
        .is_some_and(|n| n as usize > config.max_body_bytes)
    {
        return Err(too_big(&final_url, config.max_body_bytes));
    }
    let mut body: Vec<u8> = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| http_error(&final_url, e))?;
        if body.len() + chunk.len() > config.max_body_bytes {
            return Err(too_big(&final_url, config.max_body_bytes));
        }
        body.extend_from_slice(&chunk);
    }

    let is_json = content_type.contains("json");
    let is_html = content_type.contains("html");
    let looks_binary = body.iter().take(8000).any(|&b| b == 0);
    let mut image = None;
    let mut picture_saved = None;
    let mut document = None;
    let mut text = if crate::pdf_text::is_pdf(&body) || content_type.contains("application/pdf") {
        // The seed: a PDF's text for the model, as read_file gives it, and the file itself
        // for a model that takes files.
        if body.len() as u64 <= crate::read_file::IMAGE_INLINE_BYTES {
            document = Some(FetchedFile {
                mime: "application/pdf".into(),
                data_base64: base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    &body,
                ),
            });
        }
        match crate::pdf_text::pdf_text(&body) {
            Ok(t) => t,
            Err(why) => format!(
                "(a PDF of {} bytes whose text cannot be read: {why})",
                body.len()
            ),
        }
    } else if let Some(mime) = image_type(&content_type) {
        let size = crate::list_files::human_size(body.len() as u64);
        if body.len() as u64 <= crate::read_file::IMAGE_INLINE_BYTES {
            let ext = mime.trim_start_matches("image/").replace("jpeg", "jpg");
            // Not saved is not a failure: the model still gets the picture, the card shows none.
            picture_saved = paging::save_bytes(&config.output_dir, &body, "picture", &ext).ok();
            image = Some(FetchedFile {
                mime: mime.to_string(),
                data_base64: base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    &body,
                ),
            });
            format!("(an image: {mime}, {size})")
        } else {
            format!("(an image: {mime}, {size}, too large to attach)")
        }
    } else if looks_binary && !is_json && !is_html && !content_type.starts_with("text/") {
        format!("(binary response: {content_type}, {} bytes)", body.len())
    } else {
        String::from_utf8_lossy(&body).into_owned()
    };
    if let Some(path) = &args.jsonpath {
        let v: Value = serde_json::from_slice(&body).map_err(|e| {
            ToolError::InvalidArgument(format!(
                "jsonpath needs a JSON response, but this one does not parse ({e})"
            ))
        })?;
        let jp = json_path(path)?;
        let found: Vec<&Value> = jp.query(&v).all();
        text = serde_json::to_string_pretty(&found).unwrap_or_default();
    } else if args.format != FetchFormat::Raw && is_json {
        if let Ok(v) = serde_json::from_slice::<Value>(&body) {
            text = serde_json::to_string_pretty(&v).unwrap_or(text);
        }
    } else if args.format != FetchFormat::Raw && (is_html || args.format == FetchFormat::Markdown) {
        text = htmd::HtmlToMarkdown::builder()
            .skip_tags(vec!["script", "style", "noscript", "svg", "head"])
            .build()
            .convert(&text)
            .unwrap_or(text);
    }

    let total_chars = text.chars().count();
    let page = paging::page(&text, args.max_length, args.offset, &config.output_dir)?;
    Ok(FetchResult {
        url: final_url,
        status: status.as_u16(),
        content_type,
        text: page.text,
        total_chars,
        cut: page.cut,
        saved_to: page.saved_to,
        range: page.range,
        image,
        picture_saved,
        document,
    })
}

/// The picture types models take, by content type.
fn image_type(content_type: &str) -> Option<&'static str> {
    let base = content_type.split(';').next().unwrap_or("").trim();
    Some(match base {
        "image/png" => "image/png",
        "image/jpeg" | "image/jpg" => "image/jpeg",
        "image/gif" => "image/gif",
        "image/webp" => "image/webp",
        _ => return None,
    })
}

/// Sends the request and follows redirects one hop at a time, each judged by the gate and sent
/// to the addresses it was judged with.
async fn follow(
    config: &WebConfig,
    ctx: &FetchContext,
    mut url: reqwest::Url,
    mut method: reqwest::Method,
    args: &WebFetchArgs,
) -> ToolResult<reqwest::Response> {
    let mut body = args.body.clone();
    for hop in 0..=config.max_redirects {
        let (host, port) = host_port(&url)?;
        let addrs = if hop == 0 && !ctx.addrs.is_empty() {
            ctx.addrs.clone()
        } else {
            resolve_host(&host, port).await.map_err(|why| {
                ToolError::InvalidArgument(format!("fetching {url} failed: {why}"))
            })?
        };
        if hop > 0 {
            let Some(gate) = &ctx.gate else {
                return Err(ToolError::InvalidArgument(format!(
                    "the page redirected to {url}, which was not followed; fetch it directly if you need it"
                )));
            };
            gate(&Hop {
                url: url.as_str(),
                method: method.as_str(),
                addrs: &addrs,
            })
            .map_err(|why| {
                ToolError::InvalidArgument(format!(
                    "the page redirected to {url}, which was not followed: {why}. Fetch it directly if you need it."
                ))
            })?;
        }
        let mut req = client(config, &host, &addrs, port)?.request(method.clone(), url.clone());
        for (k, v) in args.headers.iter().flatten() {
            req = req.header(k, v);
        }
        if let Some(b) = &body {
            req = req.body(b.clone());
        }
        let resp = req.send().await.map_err(|e| http_error(url.as_str(), e))?;
        let status = resp.status();
        let location = resp
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let Some(location) = location.filter(|_| status.is_redirection()) else {
            return Ok(resp);
        };
        let next = url.join(&location).map_err(|e| {
            ToolError::InvalidArgument(format!(
                "{url} redirected to `{location}`, which is not a valid address ({e})"
            ))
        })?;
        if !matches!(next.scheme(), "http" | "https") {
            return Err(ToolError::InvalidArgument(format!(
                "{url} redirected to `{next}`; only http and https are followed"
            )));
        }
        // As browsers do: 303, and 301/302 after a POST, continue as a GET without a body.
        if status == reqwest::StatusCode::SEE_OTHER
            || (matches!(status.as_u16(), 301 | 302) && method == reqwest::Method::POST)
        {
            method = reqwest::Method::GET;
            body = None;
        }
        url = next;
    }
    Err(ToolError::InvalidArgument(format!(
        "fetching {} failed: it redirected more than {} times",
        args.url, config.max_redirects
    )))
}

fn too_big(url: &str, cap: usize) -> ToolError {
    ToolError::InvalidArgument(format!(
        "the response from {url} is over {} MB, too large to fetch",
        cap / (1024 * 1024)
    ))
}

/// The model's view: a status line, then the content fenced as untrusted data (see
/// [`crate::fence`]): a page cannot close the fence and speak as the system.
pub fn render_fetch(r: &FetchResult) -> String {
    let status = format!(
        "HTTP {} from {} ({})\n",
        r.status,
        r.url,
        if r.content_type.is_empty() {
            "no content type"
        } else {
            &r.content_type
        },
    );
    status
        + &crate::fence::fence(
            WEB_FENCE,
            &r.url.replace('"', "%22"),
            &r.text,
            "came from the web",
        )
}

/// The tag name fenced web content carries (a random token follows it).
const WEB_FENCE: &str = "untrusted-web-content";

/// Brave Search's API, where `/res/v1/web/search` lives.
pub const BRAVE_URL: &str = "https://api.search.brave.com";
/// Tavily's API, where `/search` lives.
pub const TAVILY_URL: &str = "https://api.tavily.com";

/// A search provider's HTTP API. Base URLs are configurable (self-hosted SearXNG, tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchProvider {
    Brave { api_key: String, base_url: String },
    Tavily { api_key: String, base_url: String },
    Searxng { base_url: String },
}

/// A search query's bounds (seed 001): what search services take, and what a query is.
const MAX_QUERY_CHARS: usize = 400;
const MAX_QUERY_WORDS: usize = 50;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchArgs {
    /// 1–400 characters, at most 50 words.
    pub query: String,
    /// Results wanted (1-50). Default 10.
    #[serde(default)]
    pub count: Option<u8>,
    /// `pd` (day), `pw` (week), `pm` (month), `py` (year).
    #[serde(default)]
    pub freshness: Option<String>,
    /// Two-letter country code, e.g. `us`.
    #[serde(default)]
    pub country: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    pub title: String,
    pub url: String,
    pub snippet: String,
}

fn str_at(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// Results a search returns at most (the seed's limit); more than a provider gives in one
/// answer are asked for page by page.
pub const MAX_SEARCH_RESULTS: u8 = 50;
/// Results one answer of a provider holds at most.
const PAGE_SIZE: u8 = 20;

/// What makes a search impossible before it is sent: checked before anyone is asked to approve
/// it, and again when it runs.
pub fn check_search(args: &WebSearchArgs) -> ToolResult<()> {
    if args.query.trim().is_empty() {
        return Err(ToolError::InvalidArgument(
            "the search query is empty".into(),
        ));
    }
    let chars = args.query.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(ToolError::InvalidArgument(format!(
            "the search query is {chars} characters long; keep it to {MAX_QUERY_CHARS} — the few words a person would type into a search box"
        )));
    }
    let words = args.query.split_whitespace().count();
    if words > MAX_QUERY_WORDS {
        return Err(ToolError::InvalidArgument(format!(
            "the search query has {words} words; keep it to {MAX_QUERY_WORDS} — the few words a person would type into a search box"
        )));
    }
    if let Some(c) = args.count
        && !(1..=MAX_SEARCH_RESULTS).contains(&c)
    {
        return Err(ToolError::InvalidArgument(format!(
            "count must be 1 to {MAX_SEARCH_RESULTS} (it was {c})"
        )));
    }
    if let Some(f) = &args.freshness
        && !["pd", "pw", "pm", "py"].contains(&f.as_str())
    {
        return Err(ToolError::InvalidArgument(format!(
            "freshness `{f}` is not one of pd, pw, pm, py"
        )));
    }
    Ok(())
}

pub async fn web_search(config: &WebConfig, args: &WebSearchArgs) -> ToolResult<Vec<SearchHit>> {
    let provider = config.search.as_ref().ok_or_else(|| {
        ToolError::InvalidArgument(
            "no web search service is set up; ask the user to choose one in Settings → Web search (Brave Search, Tavily or their own SearXNG), or use web_fetch on a page you know".into(),
        )
    })?;
    check_search(args)?;
    let count = usize::from(args.count.unwrap_or(10));
    // The provider is one the user configured: its address is not the model's to choose.
    let http = client(config, "", &[], 0)?;
    let mut hits: Vec<SearchHit> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let pages = count.div_ceil(usize::from(PAGE_SIZE));
    for page in 0..pages {
        let answer = match search_page(&http, provider, args, count, page).await {
            Ok(a) => a,
            // A later page that fails leaves the results found so far, not nothing.
            Err(_) if !hits.is_empty() => break,
            Err(e) => return Err(e),
        };
        let before = hits.len();
        for hit in answer {
            if hits.len() < count && seen.insert(hit.url.clone()) {
                hits.push(hit);
            }
        }
        // Tavily has no pages; an empty or repeated page means the provider has no more.
        if hits.len() == before || matches!(provider, SearchProvider::Tavily { .. }) {
            break;
        }
    }
    Ok(hits)
}

/// One answer of the provider: page `page` (from 0) of the results for `count` wanted.
async fn search_page(
    http: &reqwest::Client,
    provider: &SearchProvider,
    args: &WebSearchArgs,
    count: usize,
    page: usize,
) -> ToolResult<Vec<SearchHit>> {
    let per_page = count.min(usize::from(PAGE_SIZE));
    let (url, results_key, snippet_key, value) = match provider {
        SearchProvider::Brave { api_key, base_url } => {
            // Brave's offset counts pages of `count` results.
            let mut req = http
                .get(format!(
                    "{}/res/v1/web/search",
                    base_url.trim_end_matches('/')
                ))
                .header("X-Subscription-Token", api_key)
                .header("Accept", "application/json")
                .query(&[
                    ("q", args.query.as_str()),
                    ("count", &per_page.to_string()),
                    ("offset", &page.to_string()),
                ]);
            if let Some(f) = &args.freshness {
                req = req.query(&[("freshness", f)]);
            }
            if let Some(c) = &args.country {
                req = req.query(&[("country", c)]);
            }
            (
                base_url.clone(),
                "/web/results",
                "description",
                send_json(req).await?,
            )
        }
        SearchProvider::Tavily { api_key, base_url } => {
            let range = args.freshness.as_deref().map(|f| match f {
                "pd" => "day",
                "pw" => "week",
                "pm" => "month",
                _ => "year",
            });
            let mut body = serde_json::json!({"query": args.query, "max_results": per_page});
            if let Some(r) = range {
                body["time_range"] = Value::String(r.into());
            }
            if let Some(c) = &args.country {
                body["country"] = Value::String(c.clone());
            }
            let req = http
                .post(format!("{}/search", base_url.trim_end_matches('/')))
                .bearer_auth(api_key)
                .json(&body);
            (
                base_url.clone(),
                "/results",
                "content",
                send_json(req).await?,
            )
        }
        SearchProvider::Searxng { base_url } => {
            let mut req = http
                .get(format!("{}/search", base_url.trim_end_matches('/')))
                .query(&[
                    ("q", args.query.as_str()),
                    ("format", "json"),
                    ("pageno", &(page + 1).to_string()),
                ]);
            if let Some(f) = &args.freshness {
                let range = match f.as_str() {
                    "pd" => "day",
                    "pw" => "week",
                    "pm" => "month",
                    _ => "year",
                };
                req = req.query(&[("time_range", range)]);
            }
            (
                base_url.clone(),
                "/results",
                "content",
                send_json(req).await?,
            )
        }
    };
    let results = value
        .pointer(results_key)
        .and_then(Value::as_array)
        .ok_or_else(|| {
            ToolError::InvalidArgument(format!(
                "the search provider at {url} answered without results"
            ))
        })?;
    Ok(results
        .iter()
        .map(|r| SearchHit {
            title: str_at(r, "title"),
            url: str_at(r, "url"),
            snippet: str_at(r, snippet_key),
        })
        .collect())
}

async fn send_json(req: reqwest::RequestBuilder) -> ToolResult<Value> {
    let resp = req
        .send()
        .await
        .map_err(|e| http_error("the search provider", e))?;
    let status = resp.status();
    if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
        return Err(ToolError::InvalidArgument(
            "the search provider refused the API key; check it in Settings".into(),
        ));
    }
    if !status.is_success() {
        return Err(ToolError::InvalidArgument(format!(
            "the search provider answered HTTP {status}; try again later"
        )));
    }
    resp.json().await.map_err(|e| {
        ToolError::InvalidArgument(format!(
            "the search provider's answer is not valid JSON ({e})"
        ))
    })
}

pub fn render_search_hits(query: &str, hits: &[SearchHit]) -> String {
    let mut body = String::new();
    if hits.is_empty() {
        body.push_str("No results.\n");
    }
    for (i, h) in hits.iter().enumerate() {
        let _ = writeln!(
            body,
            "{}. {}\n   {}\n   {}",
            i + 1,
            h.title,
            h.url,
            h.snippet
        );
    }
    crate::fence::fence(
        WEB_FENCE,
        &format!("web search: {}", query.replace('"', "'")),
        body.trim_end(),
        "came from the web",
    )
}
