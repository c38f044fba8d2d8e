// Package llm runs clinevo's roles on any OpenAI-compatible endpoint (hosted
// APIs, vLLM, Ollama, a llama.cpp server) through go-openai: one client per
// role with its own model, decoding settings, timeout, concurrency limit and
// prices; JSON replies read the way real servers send them (the first JSON
// object, unknown fields ignored and counted, enums in any case) into typed
// structs, with one fixed repair policy for replies that are really wrong;
// errors classified (package fault) so Temporal can own retrying; token and cost accounting; a
// response cache for temperature-0 calls.
package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/clinevo/clinevo/fault"
	tokenest "github.com/clinevo/clinevo/internal/tokens"
	"github.com/clinevo/clinevo/settings"
)

// Error is a model call the endpoint failed or refused; the client returns it
// classified (a *fault.Error of dependency "model roles.<role>").
type Error struct {
	Role   string
	Status int // the HTTP status; 0: no answer
	Msg    string
}

func (e *Error) Error() string {
	s := "llm " + e.Role
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	return s + ": " + e.Msg
}

// malformed is a reply that stayed invalid after the repair request: not a
// failure of the endpoint, and never returned by a role (it becomes an
// llm_error turn or a fallback).
type malformed struct{ role, msg string }

func (e *malformed) Error() string { return "llm " + e.role + ": malformed reply: " + e.msg }

// IsMalformed reports whether err is a reply that stayed invalid after repair.
func IsMalformed(err error) bool {
	var e *malformed
	return errors.As(err, &e)
}

// Usage is model use by one role.
type Usage struct {
	Role             string `json:"role"`
	Model            string `json:"model,omitempty"`
	Calls            int    `json:"calls"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	// CachedTokens are the prompt tokens the provider served from its prefix
	// cache, where it reports them (usage.prompt_tokens_details.cached_tokens).
	CachedTokens int     `json:"cached_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	CacheHits    int     `json:"cache_hits"`
	// ExtraFields counts the unknown fields of the role's replies: they are
	// ignored, never an error, and counted so that a run shows how far a model
	// strays from the requested shape.
	ExtraFields int `json:"extra_fields"`
	// RateLimited counts the calls answered 429 (they are not in Calls, which
	// counts answers).
	RateLimited int `json:"rate_limited,omitempty"`
	// Endpoint, WaitedMS, Limit and LimitAt are the role's endpoint limiter as
	// its calls met it: its name, the milliseconds calls waited for a slot, a
	// rate window or a Retry-After, and its limit of calls in flight after
	// the last call, read at LimitAt (Unix milliseconds). Roles without a
	// limiter leave them zero.
	Endpoint string  `json:"endpoint,omitempty"`
	WaitedMS float64 `json:"waited_ms,omitempty"`
	Limit    int     `json:"limit,omitempty"`
	LimitAt  int64   `json:"limit_at,omitempty"`
	// ServedModels and Fingerprints are the provider's provenance of the
	// role's replies, distinct and sorted: the model each reply says served
	// it (the response's model, which may name a snapshot of the configured
	// one) and its system_fingerprint, the provider's backend configuration
	// (where it reports one). Two runs whose fingerprints differ were not
	// served alike, whatever their settings say.
	ServedModels []string `json:"served_models,omitempty"`
	Fingerprints []string `json:"fingerprints,omitempty"`
}

// Meter receives usage; activities put one in the context to account usage per episode.
type Meter interface{ Add(u Usage) }

type meterKey struct{}

// WithMeter returns a context whose model calls report usage to m.
func WithMeter(ctx context.Context, m Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

type epochKey struct{}

// WithEpoch returns a context whose model calls are cached apart for epoch
// k > 1 of a held-out case played several times (contract.EvalSpec.Epochs):
// without it a cached role would answer every epoch with the first one's
// reply, and the epochs could not differ. Epoch 1 (and 0, no epochs) keeps
// the keys it always had. As inspect_ai's cache policy does by default
// (CachePolicy per_epoch), each epoch has its own replies; clinevo's choice.
func WithEpoch(ctx context.Context, k int) context.Context {
	if k <= 1 {
		return ctx
	}
	return context.WithValue(ctx, epochKey{}, k)
}

// epochCacheKey is key for the context's epoch (WithEpoch).
func epochCacheKey(ctx context.Context, key string) string {
	if k, ok := ctx.Value(epochKey{}).(int); ok {
		return fmt.Sprintf("%s/epoch%d", key, k)
	}
	return key
}

func meter(ctx context.Context) Meter {
	m, _ := ctx.Value(meterKey{}).(Meter)
	return m
}

// Tally is a Meter that sums usage by role.
type Tally struct {
	mu   sync.Mutex
	byRo map[string]Usage
}

// Add counts usage.
func (t *Tally) Add(u Usage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byRo == nil {
		t.byRo = map[string]Usage{}
	}
	a := t.byRo[u.Role]
	a.Role = u.Role
	if u.Model != "" {
		a.Model = u.Model
	}
	a.Calls += u.Calls
	a.PromptTokens += u.PromptTokens
	a.CompletionTokens += u.CompletionTokens
	a.CachedTokens += u.CachedTokens
	a.CostUSD += u.CostUSD
	a.CacheHits += u.CacheHits
	a.ExtraFields += u.ExtraFields
	a.RateLimited += u.RateLimited
	a.WaitedMS += u.WaitedMS
	if u.Endpoint != "" {
		a.Endpoint = u.Endpoint
	}
	if u.LimitAt >= a.LimitAt && u.LimitAt != 0 { // a reading, not a sum: the latest counts
		a.Limit, a.LimitAt = u.Limit, u.LimitAt
	}
	a.ServedModels, a.Fingerprints = distinct(a.ServedModels, u.ServedModels...), distinct(a.Fingerprints, u.Fingerprints...)
	t.byRo[u.Role] = a
}

// ByRole returns the sums.
func (t *Tally) ByRole() map[string]Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]Usage, len(t.byRo))
	for k, v := range t.byRo {
		out[k] = v
	}
	return out
}

// Cache stores replies of temperature-0 calls by a hash of model, messages
// and parameters. The client stores a reply only after the role's reader
// accepted it, and drops a stored reply the reader no longer accepts.
type Cache interface {
	Get(ctx context.Context, key string) (string, bool)
	// Put stores a reply unless one is stored for the key already.
	Put(ctx context.Context, key, reply string)
	// Drop removes the key's entry if it still holds stale.
	Drop(ctx context.Context, key, stale string)
}

// Client is one role's connection to a model endpoint.
type Client struct {
	Role     string
	Settings settings.Role
	Preset   settings.Provider // the request options the server accepts
	api      *openai.Client
	limit    *Limiter     // the endpoint's, shared by its roles; nil: no limit
	waiting  atomic.Int64 // calls waiting for a slot of limit
	cache    Cache
	prompts  bool   // Options.RecordPrompts
	keyFix   string // what to do when the endpoint refuses the key (keyFix); never the key
	redact   redactor
	noKey    bool // the role found no key (APIKey): a provider that requires one refuses it
	// malformedSeen, when set (roles check's probe of a role's own call),
	// hears of a reply still malformed after the repair request, which the
	// role itself turns into an llm_error turn or a fallback.
	malformedSeen func(error)
}

// Options are what a client takes besides its role's settings.
type Options struct {
	// Cache keeps replies of temperature-0 calls of a role with cache: true; nil: none.
	Cache Cache
	// RecordPrompts puts the prompt text on model-call spans (telemetry.prompt_text).
	// Off by default, since prompts carry what patients said.
	RecordPrompts bool
	// RateWindow is the window of roles.<role>.rpm and tpm; zero: a minute.
	// Tests scale it down.
	RateWindow time.Duration
	// Secrets are the process's other secrets (the results database's
	// password, Qdrant's and Temporal's keys): removed, with the role's own
	// key, from every text the endpoint returns (redact.go).
	Secrets []string
}

// APIKey resolves the key of a role: the environment variable, else the file.
// A missing key is allowed (local servers need none).
func APIKey(s settings.Role) (string, error) {
	if s.APIKeyEnv != "" {
		if k := os.Getenv(s.APIKeyEnv); k != "" {
			return k, nil
		}
	}
	if s.APIKeyFile != "" {
		b, err := os.ReadFile(s.APIKeyFile)
		if err != nil {
			return "", fmt.Errorf("api key file: %w", err) // the path, never the content
		}
		return strings.TrimSpace(string(b)), nil
	}
	return "", nil
}

// keyFix says what to do about a refused key of a role, naming where the
// key came from (APIKey's order): the variable or the file, never the key.
func keyFix(role string, s settings.Role, key string) string {
	const restart = "on every worker and restart them (a worker reads the key when it builds the role)"
	switch {
	case key == "" && s.APIKeyEnv != "":
		return fmt.Sprintf("roles.%s sent no key: set $%s (roles.%s.api_key_env) to a valid key %s", role, s.APIKeyEnv, role, restart)
	case key == "":
		return fmt.Sprintf("roles.%s sent no key: name the variable that holds one in roles.%s.api_key_env %s", role, role, restart)
	case s.APIKeyEnv != "" && os.Getenv(s.APIKeyEnv) != "":
		return fmt.Sprintf("the endpoint refused the key of roles.%s in $%s (roles.%s.api_key_env): set a valid key there %s", role, s.APIKeyEnv, role, restart)
	}
	return fmt.Sprintf("the endpoint refused the key of roles.%s in the file %s (roles.%s.api_key_file): write a valid key there %s", role, s.APIKeyFile, role, restart)
}

// NewClient builds a role's client. The go-openai client makes one attempt per
// call: retries belong to the Temporal activity.
func NewClient(role string, s settings.Role, o Options) (*Client, error) {
	check := s
	check.Backend = settings.OpenAI
	if err := (settings.Roles{role: check}).Validate(); err != nil {
		return nil, err
	}
	key, err := APIKey(s)
	if err != nil {
		return nil, fmt.Errorf("roles.%s: %w", role, err)
	}
	preset, _ := s.PresetOf() // Validate refused an unknown one
	cfg := openai.DefaultConfig(key)
	if preset.Azure {
		cfg = openai.DefaultAzureConfig(key, s.Endpoint())
	}
	cfg.BaseURL = strings.TrimSuffix(s.Endpoint(), "/")
	timeout := time.Duration(s.Timeout)
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	cfg.HTTPClient = &retryAfterDoer{c: &http.Client{Timeout: timeout}}
	c := &Client{Role: role, Settings: s, Preset: preset, api: openai.NewClientWithConfig(cfg), prompts: o.RecordPrompts, keyFix: keyFix(role, s, key),
		noKey: key == "", redact: newRedactor(append(slices.Clone(o.Secrets), key)...)}
	if s.Concurrency > 0 || s.RPM > 0 || s.TPM > 0 {
		ceiling := s.Concurrency
		if ceiling == 0 {
			ceiling = math.MaxInt32 // rate limits alone
		}
		c.limit = limiterOf(c.Settings.Endpoint()+" "+s.Model, role, ceiling, s.RPM, s.TPM, o.RateWindow)
	}
	if s.Cache && s.Temperature == 0 {
		c.cache = o.Cache
	}
	return c, nil
}

// retryAfterDoer records the Retry-After header of a 429 in the request's context.
type retryAfterDoer struct{ c *http.Client }

type retryAfterKey struct{}

func (d *retryAfterDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		if p, ok := req.Context().Value(retryAfterKey{}).(*time.Duration); ok {
			*p = parseRetryAfter(resp.Header.Get("Retry-After"))
		}
	}
	return resp, err
}

func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// Message is one chat message.
type Message = openai.ChatCompletionMessage

// System and User build messages.
func System(s string) Message { return Message{Role: openai.ChatMessageRoleSystem, Content: s} }

// User builds a user message.
func User(s string) Message { return Message{Role: openai.ChatMessageRoleUser, Content: s} }

// Reply formats of a role (settings roles.<role>.format; tools.go has
// function calling).
const (
	FormatJSON = "json"
	FormatTags = "tags" // a benchmark's tagged action format, not a JSON object
)

// RepairPrompt is the one repair request sent after an invalid reply. It does
// not count as a turn.
const RepairPrompt = "Your previous reply could not be used: %s. Reply again with only the JSON object described above, nothing else."

// JSON sends messages, parses the reply into out (a pointer to a struct) and
// checks it with validate. Replies are read the way real servers send them: the
// first complete JSON object counts, whatever prose or code fence surrounds it;
// unknown fields are ignored and counted as the role's extra_fields; validate
// matches enum values without regard to case or surrounding space (see enum).
// The policy for a reply that is really wrong (no JSON object, a missing
// required field, an ID that does not exist, a value outside the allowed set),
// the same for every role: one repair request quoting the problem; if that
// reply is wrong too, an *Error of kind Malformed, which the caller records as
// an llm_error_turn.
func (c *Client) JSON(ctx context.Context, msgs []Message, out any, validate func() error) error {
	if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("llm %s: decode into %T, want a non-nil pointer", c.Role, out) // a bug of the caller, not of the reply
	}
	return c.Exchange(ctx, msgs, func(reply string) error { return c.decode(ctx, reply, out, validate) }, RepairPrompt)
}

// Exchange sends msgs and reads the reply with read; a reply read rejects
// gets the one repair request (repair, a format with one %s for the
// problem), and a second rejection is an *Error of kind Malformed. Every
// reply format of every role goes through it, a benchmark's own too: one
// repair policy.
func (c *Client) Exchange(ctx context.Context, msgs []Message, read func(reply string) error, repair string) error {
	accept := func(m Message) error { return read(m.Content) }
	reply, problem, err := c.Chat(ctx, c.Request(msgs), accept)
	if err != nil || problem == nil {
		return err
	}
	again := append(append([]Message(nil), msgs...), Message{Role: openai.ChatMessageRoleAssistant, Content: reply.Content},
		User(fmt.Sprintf(repair, problem)))
	if _, problem, err = c.Chat(ctx, c.Request(again), accept); err != nil {
		return err
	}
	if problem != nil {
		err := &malformed{role: c.Role, msg: problem.Error()}
		if c.malformedSeen != nil {
			c.malformedSeen(err)
		}
		return err
	}
	return nil
}

// decode reads the first JSON object of a reply into out, which it zeroes first
// so that nothing of a rejected reply survives into the repaired one, counts the
// object's unknown fields on the context's meter, and validates the result.
func (c *Client) decode(ctx context.Context, reply string, out any, validate func() error) error {
	obj, probe, err := firstObject(reply)
	if err != nil {
		return err
	}
	v := reflect.ValueOf(out)
	v.Elem().SetZero()
	if err := json.Unmarshal([]byte(obj), out); err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	c.CountExtraFields(ctx, extraFields(probe, v.Type().Elem()))
	if validate != nil {
		return validate()
	}
	return nil
}

// firstObject returns the first complete JSON object of a reply. Models wrap
// their JSON in code fences and prose; a brace in the prose ("{like this}")
// opens a candidate that is balanced but not JSON, and the search goes on after
// it. Braces inside JSON strings do not count. A first object that never closes
// (a reply cut off at max_tokens) is an error rather than a reason to take an
// object nested inside it. It returns the object's text and its generic
// decoding, which extraFields reads.
func firstObject(reply string) (string, any, error) {
	var firstErr error
	for i := 0; i < len(reply); {
		j := strings.IndexByte(reply[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		end := closingBrace(reply, start)
		if end < 0 {
			if firstErr != nil {
				return "", nil, firstErr
			}
			return "", nil, errors.New("the JSON object is incomplete: the reply ends before its closing brace")
		}
		obj := reply[start : end+1]
		var probe any
		err := json.Unmarshal([]byte(obj), &probe)
		if err == nil {
			return obj, probe, nil
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("invalid JSON: %v", err)
		}
		i = end + 1
	}
	if firstErr != nil {
		return "", nil, firstErr
	}
	return "", nil, errors.New("no JSON object in the reply")
}

// closingBrace returns the index of the brace that closes the one at start, or
// -1; braces inside JSON strings (with their escapes) are skipped.
func closingBrace(s string, start int) int {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(s); i++ {
		ch := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
		case ch == '"':
			inString = true
		case ch == '{':
			depth++
		case ch == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// extraFields counts the fields of a generically decoded JSON object, at any
// depth, that the Go type t (into which encoding/json decodes it) has no
// field for. Names match
// as encoding/json matches them: by json tag or field name, ignoring case.
func extraFields(v any, t reflect.Type) int {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	n := 0
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		for k, fv := range m {
			ft, ok := jsonField(t, k)
			if !ok {
				n++
				continue
			}
			n += extraFields(fv, ft)
		}
	case reflect.Slice, reflect.Array:
		if xs, ok := v.([]any); ok {
			for _, x := range xs {
				n += extraFields(x, t.Elem())
			}
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			for _, x := range m {
				n += extraFields(x, t.Elem())
			}
		}
	}
	return n
}

// jsonField returns the type of the field of struct t that encoding/json fills
// from key, looking into embedded structs as encoding/json does.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if typ, ok := jsonField(ft, key); ok {
					return typ, true
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return f.Type, true
		}
	}
	return nil, false
}

// Enum returns the allowed value that got names, ignoring case and surrounding
// space: real models send "request_test", " Finalize " and "high_yield". ok is
// false when got names none of them (a value outside the allowed set, which is
// worth a repair request).
func Enum(got string, allowed ...string) (string, bool) {
	g := strings.TrimSpace(got)
	for _, a := range allowed {
		if strings.EqualFold(g, a) {
			return a, true
		}
	}
	return got, false
}

// Request is the chat request of msgs under the role's decoding settings,
// in JSON mode where the role asks for it: what JSON sends, and what a reply
// format beyond JSON and text (function calling) starts from before Chat.
func (c *Client) Request(msgs []Message) openai.ChatCompletionRequest {
	r := openai.ChatCompletionRequest{Model: c.Settings.Model, Messages: msgs, Temperature: c.Settings.Temperature,
		TopP: c.Settings.TopP}
	if c.Preset.MaxTokensField == "max_completion_tokens" {
		r.MaxCompletionTokens = c.Settings.MaxTokens
	} else {
		r.MaxTokens = c.Settings.MaxTokens
	}
	if c.Settings.Seed != 0 && c.Preset.Seed {
		seed := c.Settings.Seed
		r.Seed = &seed
	}
	// A tags reply is not a JSON object; a server without JSON mode would
	// refuse the option.
	if c.Settings.JSONMode && c.Settings.Format != FormatTags && c.Preset.JSONMode {
		r.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return r
}

// CacheKey is the hash of model, messages and decoding parameters.
func CacheKey(r openai.ChatCompletionRequest) string {
	b, _ := json.Marshal(struct {
		Model       string
		Messages    []Message
		Temperature float32
		TopP        float32
		MaxTokens   int
		JSON        bool
		Tools       []openai.Tool `json:",omitempty"` // absent without tools: earlier keys stay valid
		ToolChoice  any           `json:",omitempty"`
		Seed        *int          `json:",omitempty"` // absent without a seed: earlier keys stay valid
	}{r.Model, r.Messages, r.Temperature, r.TopP, max(r.MaxTokens, r.MaxCompletionTokens), r.ResponseFormat != nil, r.Tools, r.ToolChoice, r.Seed})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

var (
	tracer     = otel.Tracer("clinevo/llm")
	meterLLM   = otel.Meter("clinevo/llm")
	tokens, _  = meterLLM.Int64Counter("clinevo.llm.tokens", metric.WithDescription("model tokens by role and direction"))
	spend, _   = meterLLM.Float64Counter("clinevo.llm.cost_usd", metric.WithDescription("model spend in USD by role"))
	latency, _ = meterLLM.Float64Histogram("clinevo.llm.latency_ms", metric.WithDescription("model call latency"))
)

// Chat makes one chat call of req through the role's cache, concurrency
// limit, meter and tracing, and reads the reply with accept, which returns
// the problem of a reply it rejects. The cache only ever holds replies accept
// took: a cached reply it rejects (stored by an older clinevo, or under
// another validation) is dropped and the model asked again, and a fresh reply
// is stored only once accept took it. A reply to a request that offers
// functions (req.Tools) is cached as the whole message's JSON, any other as
// its content. JSON and text replies go through Exchange; a reply format of
// functions (a benchmark's own) calls Chat and keeps the one repair policy.
func (c *Client) Chat(ctx context.Context, req openai.ChatCompletionRequest, accept func(Message) error) (msg Message, problem, err error) {
	ctx, span := tracer.Start(ctx, "llm.chat", trace.WithAttributes(attribute.String("llm.role", c.Role), attribute.String("llm.model", c.Settings.Model)))
	start := time.Now()
	defer func() {
		ms := float64(time.Since(start).Microseconds()) / 1000
		span.SetAttributes(attribute.Float64("llm.latency_ms", ms))
		latency.Record(ctx, ms, metric.WithAttributes(attribute.String("role", c.Role)))
		if c.prompts {
			var b strings.Builder
			for _, m := range req.Messages {
				b.WriteString(m.Role + ": " + m.Content + "\n")
			}
			span.SetAttributes(attribute.String("llm.prompt", b.String()))
		}
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()
	key := ""
	if c.cache != nil {
		key = epochCacheKey(ctx, CacheKey(req))
		if reply, ok := c.cache.Get(ctx, key); ok {
			m := Message{Role: openai.ChatMessageRoleAssistant, Content: reply}
			if len(req.Tools) > 0 && json.Unmarshal([]byte(reply), &m) != nil {
				m = Message{Role: openai.ChatMessageRoleAssistant, Content: reply}
			}
			if accept(m) == nil {
				if mt := meter(ctx); mt != nil {
					mt.Add(Usage{Role: c.Role, Model: c.Settings.Model, CacheHits: 1})
				}
				span.SetAttributes(attribute.Bool("llm.cache_hit", true))
				return m, nil, nil
			}
			c.cache.Drop(ctx, key, reply)
		}
		span.SetAttributes(attribute.Bool("llm.cache_hit", false))
	}
	if msg, err = c.call(ctx, req); err != nil {
		return Message{}, nil, err
	}
	if problem = accept(msg); problem == nil && c.cache != nil {
		reply := msg.Content
		if len(req.Tools) > 0 {
			b, _ := json.Marshal(msg) // a decoded message marshals back
			reply = string(b)
		}
		c.cache.Put(ctx, key, reply)
	}
	return msg, problem, nil
}

// call makes one chat call to the model and accounts for it.
// distinct is set with names added: sorted, each once, none empty (nil
// when it holds none).
func distinct(set []string, names ...string) []string {
	out := slices.Clone(set)
	for _, n := range names {
		if n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (c *Client) call(ctx context.Context, req openai.ChatCompletionRequest) (Message, error) {
	var retryAfter, waited time.Duration
	outcome, used := Failed, 0
	if c.limit != nil {
		var err error
		if waited, err = c.acquire(ctx, estimateTokens(req)); err != nil {
			return Message{}, err
		}
	}
	defer func() {
		u := Usage{Role: c.Role}
		if outcome == RateLimited {
			u.RateLimited = 1
		}
		if c.limit != nil {
			c.limit.Release(ctx, outcome, retryAfter, used)
			u.Endpoint, u.Limit, u.LimitAt = c.limit.Endpoint, c.limit.Limit(), time.Now().UnixMilli()
			u.WaitedMS = float64(waited) / float64(time.Millisecond)
		}
		if m := meter(ctx); m != nil && (u.RateLimited > 0 || u.LimitAt > 0) {
			m.Add(u)
		}
	}()
	resp, err := c.api.CreateChatCompletion(context.WithValue(ctx, retryAfterKey{}, &retryAfter), req)
	if err != nil {
		err = c.classify(err, retryAfter)
		var f *fault.Error
		if errors.As(err, &f) && f.Class == fault.RateLimited {
			outcome = RateLimited
		} else if errors.As(err, &f) && f.Class == fault.Timeout {
			outcome = TimedOut
		}
		return Message{}, err
	}
	outcome, used = Succeeded, resp.Usage.TotalTokens
	if used == 0 {
		used = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	}
	cost := float64(resp.Usage.PromptTokens)*c.Settings.PricePrompt/1e6 + float64(resp.Usage.CompletionTokens)*c.Settings.PriceCompletion/1e6
	cached := 0
	if d := resp.Usage.PromptTokensDetails; d != nil {
		cached = d.CachedTokens
	}
	if m := meter(ctx); m != nil {
		m.Add(Usage{Role: c.Role, Model: c.Settings.Model, Calls: 1, PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
			CachedTokens: cached, CostUSD: cost, ServedModels: distinct(nil, resp.Model), Fingerprints: distinct(nil, resp.SystemFingerprint)})
	}
	trace.SpanFromContext(ctx).SetAttributes(attribute.Int("llm.prompt_tokens", resp.Usage.PromptTokens), attribute.Int("llm.completion_tokens", resp.Usage.CompletionTokens),
		attribute.Int("llm.cached_tokens", cached))
	role := attribute.String("role", c.Role)
	tokens.Add(ctx, int64(resp.Usage.PromptTokens), metric.WithAttributes(role, attribute.String("direction", "prompt")))
	tokens.Add(ctx, int64(resp.Usage.CompletionTokens), metric.WithAttributes(role, attribute.String("direction", "completion")))
	if cached > 0 {
		tokens.Add(ctx, int64(cached), metric.WithAttributes(role, attribute.String("direction", "cached_prompt")))
	}
	spend.Add(ctx, cost, metric.WithAttributes(role))
	if len(resp.Choices) == 0 {
		return Message{}, c.failed(fault.ServerError, 0, "the reply has no choices")
	}
	return c.redact.message(resp.Choices[0].Message), nil
}

// Dependency is how a role's endpoint is named in failures and waits.
func (c *Client) Dependency() string { return "model roles." + c.Role }

// failed is a failure of the endpoint of class cl.
func (c *Client) failed(cl fault.Class, status int, msg string) error {
	return fault.New(c.Dependency(), cl, &Error{Role: c.Role, Status: status, Msg: msg})
}

// classify maps an API error to its fault class (fault.Error). 429 is rate
// limited (retried after the server's Retry-After), 5xx a server error, no
// answer at all unavailable or a timeout; 401 and 403 are a refused key and
// 400, 404 and a prompt over the context length an invalid request, which
// say what to fix. The message never includes request headers, and the
// endpoint's own words are redacted, so the key cannot leak through it.
func (c *Client) classify(err error, retryAfter time.Duration) error {
	status := 0
	msg := err.Error()
	var api *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &api):
		status, msg = api.HTTPStatusCode, api.Message
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
	}
	// The one way an endpoint's words leave the client on failure: the
	// error keeps no other part of err (redact.go).
	msg = c.redact.text(msg)
	e := &Error{Role: c.Role, Status: status, Msg: msg}
	dep := c.Dependency()
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusTooManyRequests:
		return &fault.Error{Dependency: dep, Class: fault.RateLimited, RetryAfter: retryAfter, Err: e}
	case status == http.StatusRequestTimeout:
		return fault.New(dep, fault.Timeout, e)
	case status >= 500:
		return fault.New(dep, fault.ServerError, e)
	case status == 0:
		cl, ok := fault.Network(err)
		if !ok {
			cl = fault.ServerError // an answer that is not the API's
		}
		return fault.New(dep, cl, e)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fault.Permanent(dep, fault.Unauthorized, c.keyFix, e)
	case strings.Contains(lower, "context length") || strings.Contains(lower, "context_length") || strings.Contains(lower, "maximum context"):
		e.Msg = "the prompt exceeds the model's context length: " + msg
		return fault.Permanent(dep, fault.Invalid, fmt.Sprintf("choose a model with a longer context (roles.%s.model) or give it less to read (episode.max_turns, memory.k, evolver.rule_budget)", c.Role), e)
	}
	return fault.Permanent(dep, fault.Invalid, fmt.Sprintf("check roles.%s.model (%q) and roles.%s.base_url (%s)", c.Role, c.Settings.Model, c.Role, c.Settings.BaseURL), e)
}

// acquire takes a call slot of the role's endpoint (Limiter), counted as
// waiting while it waits, and returns how long it waited; a context that
// ends first is a transient error.
func (c *Client) acquire(ctx context.Context, tokens int) (time.Duration, error) {
	if c.limit.TryAcquire(tokens) {
		return 0, nil
	}
	c.waiting.Add(1)
	defer c.waiting.Add(-1)
	start := time.Now()
	if err := c.limit.Acquire(ctx, tokens); err != nil {
		return time.Since(start), c.failed(fault.Timeout, 0, "waiting for a free call slot (roles."+c.Role+".concurrency, rpm, tpm): "+err.Error())
	}
	return time.Since(start), nil
}

// estimateTokens is a request's tokens before it is sent, for the TPM window:
// the messages' text by the estimate the doctor's context budget also uses
// (tokenest.Estimate) and the reply's limit, as providers count a request
// against the limit.
func estimateTokens(r openai.ChatCompletionRequest) int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Content)
	}
	return tokenest.Estimate(n) + max(r.MaxTokens, r.MaxCompletionTokens)
}

// CountExtraFields counts n unknown fields of a reply as the role's
// extra_fields on the context's meter: they are ignored, never an error.
func (c *Client) CountExtraFields(ctx context.Context, n int) {
	if m := meter(ctx); m != nil && n > 0 {
		m.Add(Usage{Role: c.Role, ExtraFields: n})
	}
}

// CountFallback counts, as a call of the role "<role>_fallback", a reply
// still malformed after repair that the built-in equivalent answered.
func (c *Client) CountFallback(ctx context.Context) {
	if m := meter(ctx); m != nil {
		m.Add(Usage{Role: c.Role + "_fallback", Calls: 1})
	}
}
