package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/settings"
)

// CheckPromptPrefix opens the system prompt of roles check's probe, so that
// a server log (and the test fake) can tell a probe from a role's call.
const CheckPromptPrefix = "clinevo roles check:"

// FormatCheck is a benchmark's own probe of a reply format it reads (its
// tags, its tool calls): one tiny request on the role's client, the reply
// read by the benchmark's own parser. roles check uses it for the doctor;
// a benchmark without one is probed in the shared format of the role's
// setting (CheckRole). A capability, like DoctorFormat.
type FormatCheck interface {
	// CheckFormat returns ErrNoOwnCheck for a format that is not the
	// benchmark's own (the shared probe of the format runs instead).
	CheckFormat(ctx context.Context, c *Client) error
}

// ErrNoOwnCheck is a FormatCheck's answer for a format it does not own.
var ErrNoOwnCheck = errors.New("llm: no check of the benchmark's own for this format")

// RoleCheck is the preflight verdict of one role's endpoint. Nothing in it
// holds a prompt or a key.
type RoleCheck struct {
	Role     string `json:"role"`
	Provider string `json:"provider"`
	BaseURL  string `json:"base_url"`
	Model    string `json:"model"`
	Format   string `json:"format"`
	// Reachable, Auth, ModelFound and FormatOK are "yes", "no" or "?" (not
	// learnt: an earlier step failed, or the server does not list models).
	Reachable  string `json:"reachable"`
	Auth       string `json:"auth"`
	ModelFound string `json:"model_found"`
	// JSONMode and Tools are "yes", "no" or "-" (the role does not use it).
	JSONMode  string  `json:"json_mode"`
	Tools     string  `json:"tools"`
	FormatOK  string  `json:"format_ok"`
	LatencyMS float64 `json:"latency_ms"`
	OK        bool    `json:"ok"`
	// Verdict is "ok", or the problem and what to change.
	Verdict string `json:"verdict"`
}

// CheckRole reaches role's endpoint, authenticates, looks the model up, and
// sends one tiny request in the role's reply format, read by the role's
// parser: own (a benchmark's FormatCheck, nil: none) or the shared one of the
// format (the JSON reader every shared role uses, or a function call).
func CheckRole(ctx context.Context, role string, s settings.Role, own FormatCheck) RoleCheck {
	format := s.Format
	if format == "" {
		format = FormatJSON
	}
	rc, c := startCheck(ctx, role, s, format)
	if c == nil {
		return rc
	}
	start := time.Now()
	err := c.probe(ctx, &rc, own)
	rc.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		c.verdictOf(err, &rc)
		return rc
	}
	rc.Reachable, rc.Auth, rc.FormatOK = "yes", "yes", "yes"
	if rc.ModelFound == "?" {
		rc.ModelFound = "yes" // the model answered
	}
	rc.OK, rc.Verdict = true, "ok"
	return rc
}

// startCheck builds the role's client and asks which models the endpoint
// serves (checkModels); a nil client: the verdict is in already.
func startCheck(ctx context.Context, role string, s settings.Role, format string) (RoleCheck, *Client) {
	rc := RoleCheck{Role: role, Provider: s.ProviderName(), BaseURL: s.Endpoint(), Model: s.Model, Format: format,
		Reachable: "?", Auth: "?", ModelFound: "?", JSONMode: "-", Tools: "-", FormatOK: "?"}
	c, err := NewClient(role, s, Options{})
	if err != nil {
		rc.Verdict = "configuration: " + err.Error()
		return rc, nil
	}
	if c.Preset.KeyRequired && c.noKey {
		// A hosted API refuses a request without a key; saying which variable
		// to set beats a 401 (or, offline, "unreachable") after a round trip.
		rc.Verdict = "configuration: " + c.keyFix
		return rc, nil
	}
	if done := c.checkModels(ctx, &rc); done {
		return rc, nil
	}
	return rc, c
}

// checkModels asks the endpoint which models it serves (GET /models): it
// tells an unreachable server and a refused key apart before any chat, and
// names the served models when the role's is missing. A server that lists
// none leaves ModelFound unknown. done: the verdict is in.
func (c *Client) checkModels(ctx context.Context, rc *RoleCheck) (done bool) {
	if c.Preset.Azure {
		return false // Azure lists deployments elsewhere; the chat call tells
	}
	list, err := c.api.ListModels(ctx)
	if err != nil {
		var api *openai.APIError
		var reqErr *openai.RequestError
		status := 0
		switch {
		case errors.As(err, &api):
			status = api.HTTPStatusCode
		case errors.As(err, &reqErr):
			status = reqErr.HTTPStatusCode
		}
		if status == 0 || status == http.StatusUnauthorized || status == http.StatusForbidden {
			c.verdictOf(c.classify(err, 0), rc)
			return true
		}
		rc.Reachable = "yes"
		return false // no model list (404 and the like): the chat call tells
	}
	rc.Reachable, rc.Auth = "yes", "yes"
	var served []string
	for _, m := range list.Models {
		served = append(served, c.redact.text(m.ID))
	}
	if len(served) == 0 {
		return false
	}
	if !slices.Contains(served, c.Settings.Model) {
		rc.ModelFound = "no"
		rc.Verdict = fmt.Sprintf("model %q is not served at %s (it serves %s): fix roles.%s.model, or load the model on the server",
			c.Settings.Model, rc.BaseURL, clipList(served, 8), c.Role)
		return true
	}
	rc.ModelFound = "yes"
	return false
}

func clipList(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// probe sends the tiny request of the role's format and reads the reply.
func (c *Client) probe(ctx context.Context, rc *RoleCheck, own FormatCheck) error {
	if c.Settings.JSONMode && c.Preset.JSONMode && rc.Format == FormatJSON {
		rc.JSONMode = "?"
	}
	if own != nil {
		err := c.jsonModeFirst(ctx, rc, func(c *Client) error { return own.CheckFormat(ctx, c) })
		if !errors.Is(err, ErrNoOwnCheck) {
			var f *fault.Error
			if err != nil && !IsMalformed(err) && !errors.As(err, &f) {
				err = &malformed{role: c.Role, msg: err.Error()} // the benchmark's parser refused the reply
			}
			if rc.Format == "tools" {
				rc.Tools = "yes"
				if st := statusOf(err); IsMalformed(err) || st == http.StatusBadRequest || st == http.StatusUnprocessableEntity {
					rc.Tools = "no"
				}
			}
			return err
		}
		rc.JSONMode = "-"
		if c.Settings.JSONMode && c.Preset.JSONMode && rc.Format == FormatJSON {
			rc.JSONMode = "?"
		}
	}
	switch {
	case rc.Format == "tools":
		rc.Tools = "?"
		return c.probeTools(ctx, rc)
	case rc.Format == FormatTags:
		return c.probeTags(ctx)
	}
	return c.jsonModeFirst(ctx, rc, func(c *Client) error {
		if ok, err := c.probeShared(ctx); ok {
			return err
		}
		return c.probeJSON(ctx)
	})
}

// jsonModeFirst runs a probe; a request refused while in JSON mode is tried
// once more on a client without it, to tell "this server has no JSON mode"
// from any other refusal.
func (c *Client) jsonModeFirst(ctx context.Context, rc *RoleCheck, run func(*Client) error) error {
	err := run(c)
	if rc.JSONMode == "-" {
		return err
	}
	if err == nil {
		rc.JSONMode = "yes"
		return nil
	}
	if st := statusOf(err); st != http.StatusBadRequest && st != http.StatusUnprocessableEntity {
		return err
	}
	s := c.Settings
	s.JSONMode = false
	without, nerr := NewClient(c.Role, s, Options{})
	if nerr != nil || run(without) != nil {
		return err
	}
	rc.JSONMode = "no"
	return &noJSONMode{err: err}
}

// noJSONMode is a server that refused response_format but answered without it.
type noJSONMode struct{ err error }

func (e *noJSONMode) Error() string { return e.err.Error() }

// checkReply is the probe's JSON reply.
type checkReply struct {
	OK *bool `json:"ok"`
}

func (c *Client) probeJSON(ctx context.Context) error {
	msgs := []Message{System(CheckPromptPrefix + ` a connectivity check. Reply with only this JSON object and nothing else: {"ok": true}`), User("check")}
	var r checkReply
	return c.JSON(ctx, msgs, &r, func() error {
		if r.OK == nil || !*r.OK {
			return errors.New(`the object needs "ok": true`)
		}
		return nil
	})
}

// checkTool is the one function the tools probe offers.
var checkTool = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "record_check",
	Description: "Record that the check reached you.", Parameters: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}}

func (c *Client) probeTools(ctx context.Context, rc *RoleCheck) error {
	if !c.Preset.Tools {
		rc.Tools = "no"
		return fmt.Errorf("provider %s takes no function calls (tools)", rc.Provider)
	}
	req := c.Request([]Message{System(CheckPromptPrefix + " a connectivity check. Call the function record_check with ok set to true."), User("check")})
	req.ResponseFormat = nil
	req.Tools = []openai.Tool{checkTool}
	req.ToolChoice = "required"
	_, problem, err := c.Chat(ctx, req, func(m Message) error {
		if len(m.ToolCalls) == 0 {
			return errors.New("the reply holds no function call")
		}
		var r checkReply
		if err := json.Unmarshal([]byte(m.ToolCalls[0].Function.Arguments), &r); err != nil || m.ToolCalls[0].Function.Name != checkTool.Function.Name {
			return fmt.Errorf("the reply calls %q with %q, not record_check with a JSON object", m.ToolCalls[0].Function.Name, m.ToolCalls[0].Function.Arguments)
		}
		return nil
	})
	if err != nil {
		if st := statusOf(err); st == http.StatusBadRequest || st == http.StatusUnprocessableEntity {
			rc.Tools = "no"
		}
		return err
	}
	if problem != nil {
		rc.Tools = "no"
		return &malformed{role: c.Role, msg: problem.Error()}
	}
	rc.Tools = "yes"
	return nil
}

var checkTag = regexp.MustCompile(`(?s)<check>\s*ok\s*</check>`)

func (c *Client) probeTags(ctx context.Context) error {
	msgs := []Message{System(CheckPromptPrefix + " a connectivity check. Reply with exactly <check>ok</check> and nothing else."), User("check")}
	return c.Exchange(ctx, msgs, func(reply string) error {
		if !checkTag.MatchString(reply) {
			return errors.New("the reply holds no <check>ok</check>")
		}
		return nil
	}, "Your previous reply could not be used: %s. Reply again with exactly <check>ok</check>.")
}

// statusOf is the HTTP status of a failed model call, 0 for none.
func statusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// verdictOf fills the check's steps and verdict from a failed call: each
// failure its own message, naming the setting to change.
func (c *Client) verdictOf(err error, rc *RoleCheck) {
	var (
		e   *Error
		f   *fault.Error
		njm *noJSONMode
	)
	errors.As(err, &f)
	status := statusOf(err)
	msg := err.Error()
	if errors.As(err, &e) {
		msg = e.Msg
	}
	switch {
	case errors.As(err, &njm):
		rc.Reachable, rc.Auth, rc.FormatOK = "yes", "yes", "no"
		rc.Verdict = fmt.Sprintf("the server has no JSON mode (it refused response_format: %s): set roles.%s.json_mode: false; replies are still read as JSON", clip(msg, 120), c.Role)
	case IsMalformed(err):
		rc.Reachable, rc.Auth, rc.FormatOK = "yes", "yes", "no"
		rc.Verdict = c.malformedFix(rc.Format, msg)
	case status == 0 && f != nil && (f.Class == fault.Unavailable || f.Class == fault.Timeout):
		rc.Reachable = "no"
		rc.Verdict = fmt.Sprintf("unreachable: no answer from %s (%s): start the server, or fix roles.%s.base_url", rc.BaseURL, clip(msg, 120), c.Role)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		rc.Reachable, rc.Auth = "yes", "no"
		rc.Verdict = fmt.Sprintf("key refused (HTTP %d): %s", status, c.keyFix)
	case status == http.StatusNotFound:
		rc.Reachable, rc.Auth, rc.ModelFound = "yes", "yes", "no"
		rc.Verdict = fmt.Sprintf("model %q not found at %s (HTTP 404: %s): fix roles.%s.model or roles.%s.base_url", c.Settings.Model, rc.BaseURL, clip(msg, 120), c.Role, c.Role)
	case status == http.StatusTooManyRequests:
		rc.Reachable, rc.Auth = "yes", "yes"
		rc.Verdict = "rate limited (HTTP 429) on a single request: the key's quota is spent, or roles." + c.Role + ".rpm is above the provider's limit"
	case status != 0:
		rc.Reachable = "yes"
		rc.Verdict = fmt.Sprintf("the server refused the request (HTTP %d: %s)", status, clip(msg, 160))
	default:
		rc.Verdict = "the call failed: " + clip(msg, 160)
	}
}

// malformedFix says what to change when the model answered the probe, but
// not as the role must, even after the repair request: the server's JSON
// mode where the reply held no JSON and the server has one that is off;
// otherwise a model that keeps to the role's reply (a shared role's reply
// is fixed; only a benchmark's doctor has formats to choose from).
func (c *Client) malformedFix(format, msg string) string {
	what := fmt.Sprintf("the model answered, but not with the %s role's reply in the %s format, even after one repair request (%s)", c.Role, format, clip(msg, 160))
	noJSON := strings.Contains(msg, "no JSON object") || strings.Contains(msg, "invalid JSON")
	switch {
	case format == FormatJSON && strings.Contains(msg, "JSON object is incomplete"):
		return what + fmt.Sprintf(": the reply was cut off; raise roles.%s.max_tokens", c.Role)
	case format == FormatJSON && noJSON && !c.Settings.JSONMode && c.Preset.JSONMode:
		return what + fmt.Sprintf(": set roles.%s.json_mode: true (the server's JSON mode), or choose a model that writes JSON", c.Role)
	case format == FormatJSON:
		return what + fmt.Sprintf(": choose a model that keeps to the role's reply (docs/models.md shows each role's), or lower roles.%s.temperature", c.Role)
	}
	return what + fmt.Sprintf(": choose a model that follows the format, or another roles.%s.format", c.Role)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ConditionCheck is a role check with the conditions whose settings share it.
type ConditionCheck struct {
	Conditions []string `json:"conditions"`
	RoleCheck
}

// Condition is a named run as a check reads it: its settings and its
// benchmark (nil: one this build does not have; the shared formats are
// probed).
type Condition struct {
	Name     string
	Settings settings.Settings
	Bench    bench.Benchmark
}

// ConditionsOf are the conditions of an experiment spec as checks read
// them: each with its resolved settings and its benchmark, from set.
func ConditionsOf(spec contract.ExperimentSpec, set bench.Set) ([]Condition, error) {
	var out []Condition
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			return nil, err
		}
		b, err := set.Of(s)
		if err != nil {
			return nil, fmt.Errorf("conditions[%d] (%s): %w", i, c.Name, err)
		}
		out = append(out, Condition{Name: c.Name, Settings: s, Bench: b})
	}
	return out, nil
}

// CheckConditions checks every model role of every condition, its
// benchmark's own roles included (bench.RunRoles), once per distinct role
// setting, in role order: a consultant under MDT same_model is the doctor's
// model, the doctor is probed in its benchmark's own format where the
// benchmark offers one (FormatCheck). Built-in roles need no check and are
// left out.
func CheckConditions(ctx context.Context, conds []Condition) []ConditionCheck {
	var out []ConditionCheck
	index := map[string]int{}
	for _, c := range conds {
		s := c.Settings
		for _, role := range bench.RunRoles(c.Bench) {
			spec := s.Roles[role]
			if role == "consultant" && s.Episode.MDT == settings.MDTSameModel {
				spec = s.Roles["doctor"]
			}
			if spec.Backend != settings.OpenAI {
				continue
			}
			var own FormatCheck
			if role == "doctor" {
				own, _ = c.Bench.(FormatCheck)
			}
			key := role + "\x00" + fmt.Sprintf("%+v", spec) + fmt.Sprintf("%T", own)
			if j, ok := index[key]; ok {
				out[j].Conditions = append(out[j].Conditions, c.Name)
				continue
			}
			var rc RoleCheck
			if role == "embeddings" {
				rc = CheckEmbeddings(ctx, spec)
			} else {
				rc = CheckRole(ctx, role, spec, own)
			}
			index[key] = len(out)
			out = append(out, ConditionCheck{Conditions: []string{c.Name}, RoleCheck: rc})
		}
	}
	return out
}

// CheckEmbeddings checks the embeddings role: the endpoint, the key, the
// model and one tiny embedding of the configured dimension.
func CheckEmbeddings(ctx context.Context, s settings.Role) RoleCheck {
	rc, c := startCheck(ctx, "embeddings", s, "embedding")
	if c == nil {
		return rc
	}
	start := time.Now()
	_, err := Embedder{C: c}.Embed(ctx, []string{"check"})
	rc.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		var f *fault.Error
		if errors.As(err, &f) && f.Class == fault.Schema {
			rc.Reachable, rc.Auth, rc.ModelFound, rc.FormatOK = "yes", "yes", "yes", "no"
			rc.Verdict = f.Error()
			return rc
		}
		c.verdictOf(err, &rc)
		return rc
	}
	rc.Reachable, rc.Auth, rc.ModelFound, rc.FormatOK = "yes", "yes", "yes", "yes"
	rc.OK, rc.Verdict = true, "ok"
	return rc
}
