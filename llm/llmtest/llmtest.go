// Package llmtest is an in-process OpenAI-compatible server for tests: it
// answers chat completions per role with scripted policies, and can be told to
// fail, rate-limit, stall or send malformed replies.
package llmtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/settings"
)

// Reply is what the server sends for one request: a status, a body's
// content and more members of its message, headers, and a delay.
type Reply struct {
	Status  int
	Content string
	// Message are members of the reply's message beside role and content,
	// as the OpenAI format spells them (a reply's function calls); Finish is
	// the choice's finish_reason, "stop" when empty.
	Message map[string]any
	Finish  string
	Header  map[string]string
	Delay   time.Duration
}

// Request is one received chat or embeddings request.
type Request struct {
	Role         string
	Path         string // the URL path: a client's base_url may carry a prefix that tells runs apart
	Auth         string
	System, User string
	// Tools are the names of the functions the request offers; ToolChoice its
	// tool_choice ("" when absent).
	Tools      []string
	ToolChoice string
	Body       map[string]any
}

// Server is the fake endpoint.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
	embeds   []Request
	// Script, when set, decides the reply to request n (0-based) before the policies.
	Script func(n int, r Request) *Reply
	// FailEvery makes every FailEvery-th chat request (1-based) a 500.
	FailEvery int
	// Policy, when set, is a benchmark's scripted roles (its doctor's reply
	// format, its judge's own questions): asked after Script and the
	// injected failures, before the shared policies; nil leaves a request to
	// them.
	Policy func(r Request) *Reply
	Dim    int    // embedding dimension, default 32
	key    string // SetKey
	// Models, when set, are the only models the server serves: GET /models
	// lists them and a chat request for another is a 404, as OpenAI answers.
	Models []string
	// NoJSONMode makes the server refuse response_format with a 400, as
	// servers without JSON mode do.
	NoJSONMode bool
	rate       rateLimit // SetRateLimit
	// CachedTokens, when set, is the prompt_tokens_details.cached_tokens
	// every chat reply reports, as providers with prefix caching do.
	CachedTokens int
	// Fingerprints, when set, are the system_fingerprint of the chat
	// replies in turn (reply n reports Fingerprints[n%len]), and ServedModel
	// the model every reply says served it (default: the one requested), as
	// a provider reports its backend and the snapshot an alias resolved to.
	Fingerprints []string
	ServedModel  string
	// Latency, when set, is how long chat request n (0-based) waits before
	// whatever reply it gets: a call in flight for a test to act on.
	Latency func(n int) time.Duration
}

// rateLimit is a sliding window of answered chat requests.
type rateLimit struct {
	n       int
	per     time.Duration
	served  []time.Time
	limited int
}

// SetRateLimit makes the server answer at most n chat requests in any window
// of per and a 429, with a Retry-After until the window has room, beyond
// them, as a provider enforcing a requests-per-minute limit does (per scaled
// down in tests). n 0 lifts the limit.
func (s *Server) SetRateLimit(n int, per time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate = rateLimit{n: n, per: per}
}

// RateLimited is the number of chat requests answered 429 by SetRateLimit.
func (s *Server) RateLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rate.limited
}

// overRate is the 429 of a request beyond the rate limit, or nil (and the
// request is counted).
func (s *Server) overRate() *Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &s.rate
	if r.n == 0 {
		return nil
	}
	now := time.Now()
	for len(r.served) > 0 && !r.served[0].After(now.Add(-r.per)) {
		r.served = r.served[1:]
	}
	if len(r.served) < r.n {
		r.served = append(r.served, now)
		return nil
	}
	r.limited++
	wait := r.served[0].Add(r.per).Sub(now).Round(time.Millisecond) + time.Millisecond // rounded up, as servers round to whole seconds
	return &Reply{Status: 429, Content: "Rate limit reached for requests", Header: map[string]string{"Retry-After": fmt.Sprintf("%.3f", wait.Seconds())}}
}

// SetKey makes key the only API key the server accepts, from the next request
// on: a request without "Authorization: Bearer <key>" gets a 401, as OpenAI
// answers a wrong or revoked key. An empty key accepts any request.
func (s *Server) SetKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// refused is the reply to a request whose key the server does not accept, or nil.
func (s *Server) refused(auth string) *Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key == "" || auth == "Bearer "+s.key {
		return nil
	}
	return &Reply{Status: 401, Content: "Incorrect API key provided."}
}

// New starts a server on a loopback port; it stops at test cleanup.
func New(t testing.TB) *Server {
	s := &Server{Dim: 32}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is what a client's base_url should be.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Client is a role's client on the server: JSON mode, a 2 s timeout and
// prices of 1 and 2 USD per million tokens, changed by mod (nil: none).
func (s *Server) Client(t testing.TB, role string, mod func(*settings.Role)) *llm.Client {
	t.Helper()
	r := settings.Role{BaseURL: s.BaseURL(), Model: "test-model", JSONMode: true, Timeout: settings.Duration(2 * time.Second), PricePrompt: 1, PriceCompletion: 2}
	if mod != nil {
		mod(&r)
	}
	c, err := llm.NewClient(role, r, llm.Options{})
	if err != nil {
		t.Fatalf("llmtest: client of %s: %v", role, err)
	}
	return c
}

// Requests returns the chat requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// EmbeddingRequests returns the embeddings requests received so far (role "embeddings").
func (s *Server) EmbeddingRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.embeds...)
}

// roleOf recognises a role from the first words of its system prompt.
func roleOf(system string) string {
	for prefix, role := range map[string]string{
		"You are the doctor": "doctor", "You play a patient": "patient", "You match a doctor": "exam",
		"You are a consultant": "consultant", "You are the examiner": "judge", "You review how": "grader", "You maintain": "evolver",
		llm.CheckPromptPrefix: "check",
	} {
		if strings.HasPrefix(system, prefix) {
			return role
		}
	}
	return "unknown"
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		s.models(w, r)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, 400)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/embeddings") {
		s.embed(w, r, body)
		return
	}
	req := chatRequest(r, body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	rep := s.reply(n, req, body)
	if s.Latency != nil {
		time.Sleep(s.Latency(n))
	}
	if rep.Delay > 0 {
		time.Sleep(rep.Delay)
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Status != 200 {
		writeError(w, rep)
		return
	}
	s.writeCompletion(w, n, req, body, rep)
}

// embed records and answers an embeddings request.
func (s *Server) embed(w http.ResponseWriter, r *http.Request, body map[string]any) {
	s.mu.Lock()
	s.embeds = append(s.embeds, Request{Role: "embeddings", Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Body: body})
	s.mu.Unlock()
	if rep := s.refused(r.Header.Get("Authorization")); rep != nil {
		writeError(w, rep)
		return
	}
	s.embeddings(w, body)
}

// chatRequest reads a chat request: its system prompt and last user
// message, the role the system prompt names, its tools and tool choice.
func chatRequest(r *http.Request, body map[string]any) Request {
	req := Request{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Body: body}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		content, _ := mm["content"].(string)
		switch mm["role"] {
		case "system":
			req.System = content
		case "user":
			req.User = content // the last user message
		}
	}
	req.Role = roleOf(req.System)
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		fn, _ := tm["function"].(map[string]any)
		name, _ := fn["name"].(string)
		req.Tools = append(req.Tools, name)
	}
	req.ToolChoice, _ = body["tool_choice"].(string)
	return req
}

// reply is the reply to the n-th chat request: the first of a refused key,
// an unknown model, an unsupported JSON mode, the rate limit, the script, an
// injected failure, the policy, a role check's tool call, and the built-in
// policy that answers.
func (s *Server) reply(n int, req Request, body map[string]any) *Reply {
	rep := s.refused(req.Auth)
	if model, _ := body["model"].(string); rep == nil && len(s.Models) > 0 && !slices.Contains(s.Models, model) {
		rep = &Reply{Status: 404, Content: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)}
	}
	if _, ok := body["response_format"]; rep == nil && ok && s.NoJSONMode {
		rep = &Reply{Status: 400, Content: "response_format is not supported by this server"}
	}
	if rep == nil {
		rep = s.overRate()
	}
	if rep == nil && s.Script != nil {
		rep = s.Script(n, req)
	}
	if rep == nil && s.FailEvery > 0 && (n+1)%s.FailEvery == 0 {
		rep = &Reply{Status: 500, Content: "injected failure"}
	}
	if rep == nil && s.Policy != nil {
		rep = s.Policy(req)
	}
	if rep == nil && req.Role == "check" && len(req.Tools) > 0 {
		rep = &Reply{Status: 200, Finish: "tool_calls", Message: map[string]any{"tool_calls": []any{map[string]any{"id": "call_0", "type": "function",
			"function": map[string]any{"name": req.Tools[0], "arguments": `{"ok":true}`}}}}}
	}
	if rep == nil {
		rep = &Reply{Status: 200, Content: policy(req)}
	}
	return rep
}

// writeCompletion writes a successful reply as a chat completion, its
// usage counted in words.
func (s *Server) writeCompletion(w http.ResponseWriter, n int, req Request, body map[string]any, rep *Reply) {
	w.Header().Set("Content-Type", "application/json")
	prompt := len(strings.Fields(req.System + " " + req.User))
	completion := len(strings.Fields(rep.Content))
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	for k, v := range rep.Message {
		msg[k] = v
		b, _ := json.Marshal(v) // members given as JSON data marshal
		completion += len(strings.Fields(string(b)))
	}
	finish := rep.Finish
	if finish == "" {
		finish = "stop"
	}
	out := map[string]any{
		"id": fmt.Sprintf("chat-%d", n), "object": "chat.completion", "model": body["model"],
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"prompt_tokens_details": map[string]any{"cached_tokens": min(s.CachedTokens, prompt)}},
	}
	if len(s.Fingerprints) > 0 {
		out["system_fingerprint"] = s.Fingerprints[n%len(s.Fingerprints)]
	}
	if s.ServedModel != "" {
		out["model"] = s.ServedModel
	}
	json.NewEncoder(w).Encode(out)
}

// models lists the served models (GET /models).
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	if rep := s.refused(r.Header.Get("Authorization")); rep != nil {
		writeError(w, rep)
		return
	}
	served := s.Models
	if len(served) == 0 {
		served = []string{"test-model"}
	}
	var data []any
	for _, m := range served {
		data = append(data, map[string]any{"id": m, "object": "model", "owned_by": "llmtest"})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// writeError sends an error reply in OpenAI's shape.
func writeError(w http.ResponseWriter, rep *Reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.Status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": rep.Content, "type": "test"}})
}

func (s *Server) embeddings(w http.ResponseWriter, body map[string]any) {
	inputs, _ := body["input"].([]any)
	var data []any
	tokens := 0
	for i, in := range inputs {
		text, _ := in.(string)
		tokens += len(strings.Fields(text))
		v := make([]float32, s.Dim)
		for _, word := range strings.Fields(strings.ToLower(text)) {
			h := fnv.New32a()
			h.Write([]byte(word))
			v[int(h.Sum32())%s.Dim]++
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body["model"],
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
}

var questionLine = regexp.MustCompile(`(?m)^- Q: `)
var actionLine = regexp.MustCompile(`(?m)^\d+\. `)

// policy is a plausible reply per role.
func policy(r Request) string {
	switch r.Role {
	case "doctor":
		if len(questionLine.FindAllString(r.User, -1)) < 2 {
			return `{"action":"ASK","question":"When did it start and what makes it worse?","utterance":"Tell me more.","rationale":["history"],"working_diagnoses":["viral illness"]}`
		}
		return `{"action":"FINALIZE","utterance":"Here is my view.","rationale":["enough history"],"working_diagnoses":["Migraine"],
"diagnosis":["Migraine"],"evidence":["headache"],"plan":["simple analgesia"],"followup":["review in two weeks"]}`
	case "patient":
		return `{"answer":"It started a few days ago.","revealed_fact_ids":["f1"],"unanswered_reason":"none"}`
	case "exam":
		return `{"match":"none","item":""}`
	case "consultant":
		return `{"advice":"Take a fuller history.","next_action":"ASK","question":"Any fever?"}`
	case "judge":
		if strings.Contains(r.User, "Submitted diagnosis:") {
			return `{"grade":50,"justification":"scripted"}`
		}
		return `{"diagnosis_grade":0.5,"matched_evidence":[],"hallucinated_evidence":[],"matched_plan":[],"unsafe_plan":[]}`
	case "grader":
		n := len(actionLine.FindAllString(r.User, -1))
		var labels []string
		for i := 0; i < n; i++ {
			labels = append(labels, fmt.Sprintf(`{"turn":%d,"label":"LOW_YIELD","rationale":"scripted"}`, i))
		}
		return `{"labels":[` + strings.Join(labels, ",") + `],"summary":"scripted review"}`
	case "check":
		return `{"ok":true}`
	case "evolver":
		return `{"edits":[{"op":"add","text":"ASK triggers WHEN headache: triggers separate the common headaches"}],
"cards":[{"kind":"correction","text":"IF headache AVOID guessing without a history","avoid":"","ask":["triggers"],"tests":[],"evidence":[],"plan":[]}]}`
	}
	return `{}`
}
