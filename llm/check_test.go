package llm_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

// TestCheckRole: against the OpenAI-compatible fake, a good endpoint passes,
// and a wrong key, a missing model, a server without JSON mode and an
// unreachable endpoint each get their own verdict; none prints the key or the
// probe's prompt.
func TestCheckRole(t *testing.T) {
	const key = "sk-secret-value-1234"
	t.Setenv("CHECK_KEY", key)
	role := func(base string, mod func(*settings.Role)) settings.Role {
		r := settings.Role{Backend: settings.OpenAI, BaseURL: base, Model: "test-model", JSONMode: true, Format: "json",
			Timeout: settings.Duration(2 * time.Second), APIKeyEnv: "CHECK_KEY"}
		if mod != nil {
			mod(&r)
		}
		return r
	}
	good := llmtest.New(t)
	good.SetKey(key)
	wrongKey := llmtest.New(t)
	wrongKey.SetKey("sk-another-key")
	noModel := llmtest.New(t)
	noModel.Models = []string{"llama3", "qwen2.5"}
	noJSON := llmtest.New(t)
	noJSON.NoJSONMode = true
	keyless := llmtest.New(t)
	closed := httptest.NewServer(nil)
	gone := closed.URL + "/v1"
	closed.Close()

	for _, tc := range []struct {
		name    string
		role    settings.Role
		ok      bool
		verdict string
		steps   [4]string // reachable, auth, model found, format ok
		json    string
	}{
		{"good", role(good.BaseURL(), nil), true, "ok", [4]string{"yes", "yes", "yes", "yes"}, "yes"},
		{"good tools", role(good.BaseURL(), func(r *settings.Role) { r.Format = "tools" }), true, "ok", [4]string{"yes", "yes", "yes", "yes"}, "-"},
		{"good tags", role(good.BaseURL(), func(r *settings.Role) { r.Format = "tags" }), false, "in the tags format, even after one repair request", [4]string{"yes", "yes", "yes", "no"}, "-"},
		{"wrong key", role(wrongKey.BaseURL(), nil), false, "key refused (HTTP 401): the endpoint refused the key of roles.doctor in $CHECK_KEY", [4]string{"yes", "no", "?", "?"}, "-"},
		{"missing model", role(noModel.BaseURL(), nil), false, `model "test-model" is not served at ` + noModel.BaseURL() + ` (it serves llama3, qwen2.5)`, [4]string{"yes", "yes", "no", "?"}, "-"},
		{"no json mode", role(noJSON.BaseURL(), nil), false, "the server has no JSON mode", [4]string{"yes", "yes", "yes", "no"}, "no"},
		{"unreachable", role(gone, nil), false, "unreachable: no answer from " + gone, [4]string{"no", "?", "?", "?"}, "-"},
		{"unknown provider", role(good.BaseURL(), func(r *settings.Role) { r.Provider = "bedrock" }), false, `configuration: roles.doctor.provider "bedrock"`, [4]string{"?", "?", "?", "?"}, "-"},
		// A hosted provider without its key fails before any request, naming
		// the variable, even where the server (a keyless fake) would answer.
		{"openai without its key", role(keyless.BaseURL(), func(r *settings.Role) { r.Provider, r.APIKeyEnv = "openai", "CHECK_UNSET_KEY" }), false,
			"configuration: roles.doctor sent no key: set $CHECK_UNSET_KEY (roles.doctor.api_key_env)", [4]string{"?", "?", "?", "?"}, "-"},
		{"azure without a key variable", role(keyless.BaseURL(), func(r *settings.Role) { r.Provider, r.APIKeyEnv = "azure", "" }), false,
			"configuration: roles.doctor sent no key: name the variable that holds one in roles.doctor.api_key_env", [4]string{"?", "?", "?", "?"}, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := llm.CheckRole(context.Background(), "doctor", tc.role, nil)
			require.Equal(t, tc.ok, rc.OK, rc.Verdict)
			require.Contains(t, rc.Verdict, tc.verdict)
			require.Equal(t, tc.steps, [4]string{rc.Reachable, rc.Auth, rc.ModelFound, rc.FormatOK}, rc.Verdict)
			if tc.name != "good tags" { // the fake answers tags probes in JSON: a format failure
				require.Equal(t, tc.json, rc.JSONMode, rc.Verdict)
			}
			require.NotContains(t, rc.Verdict, key)
			require.NotContains(t, rc.Verdict, llm.CheckPromptPrefix)
		})
	}
	// The good server saw the probe with the key and in JSON mode.
	var probes int
	for _, r := range good.Requests() {
		if strings.HasPrefix(r.System, llm.CheckPromptPrefix) {
			probes++
			require.Equal(t, "Bearer "+key, r.Auth)
		}
	}
	require.GreaterOrEqual(t, probes, 2)
	require.Empty(t, keyless.Requests(), "a role without its key sends nothing")
	require.NotNil(t, good.Requests()[0].Body["response_format"], "the JSON probe asks for JSON mode")
}

// TestCheckEmbeddings: the embeddings role is checked with one tiny
// embedding of its dimension; another dimension is its own verdict.
func TestCheckEmbeddings(t *testing.T) {
	srv := llmtest.New(t)
	r := settings.Role{Backend: settings.OpenAI, BaseURL: srv.BaseURL(), Model: "test-model", Dim: 32, Timeout: settings.Duration(2 * time.Second)}
	rc := llm.CheckEmbeddings(context.Background(), r)
	require.True(t, rc.OK, rc.Verdict)
	r.Dim = 16
	rc = llm.CheckEmbeddings(context.Background(), r)
	require.False(t, rc.OK)
	require.Contains(t, rc.Verdict, "set roles.embeddings.dim to 32")
	require.Equal(t, "no", rc.FormatOK)
}

// TestCheckRoleSpeaksEachRolesReply (issue 39 §4): roles check asks every
// shared role what a run asks it, through the role's own prompt and
// parser. The fake's valid reply of each role passes; a reply that is JSON
// but not the role's ({"ok": true}, what the generic probe asked for) fails
// with the fix for a model off the format; prose without JSON from a server
// whose JSON mode is off fails with "set json_mode: true"; a reply cut off
// fails with "raise max_tokens".
func TestCheckRoleSpeaksEachRolesReply(t *testing.T) {
	wrong := map[string]func(llmtest.Request) *llmtest.Reply{
		"generic object": func(llmtest.Request) *llmtest.Reply { return &llmtest.Reply{Status: 200, Content: `{"ok": true}`} },
		"prose": func(llmtest.Request) *llmtest.Reply {
			return &llmtest.Reply{Status: 200, Content: "I would ask about the headache."}
		},
		"cut off": func(llmtest.Request) *llmtest.Reply {
			return &llmtest.Reply{Status: 200, Content: `{"action": "ASK", "question": "When di`}
		},
	}
	fix := map[string]string{"generic object": "choose a model that keeps to the role's reply", "prose": "json_mode: true", "cut off": "raise roles.%s.max_tokens"}
	for _, role := range []string{"doctor", "patient", "exam", "consultant", "judge", "grader", "evolver"} {
		t.Run(role, func(t *testing.T) {
			s := settings.Role{Backend: settings.OpenAI, Model: "test-model", Format: "json", Timeout: settings.Duration(2 * time.Second)}
			good := llmtest.New(t)
			s.BaseURL = good.BaseURL()
			rc := llm.CheckRole(context.Background(), role, s, nil)
			require.True(t, rc.OK, rc.Verdict)
			seen := false
			for _, r := range good.Requests() {
				seen = seen || r.Role == role
				require.NotEqual(t, "check", r.Role, "the role's own prompt, not the generic probe")
			}
			require.True(t, seen, "the fake saw a %s request", role)
			for name, reply := range wrong {
				srv := llmtest.New(t)
				srv.Policy = reply
				s.BaseURL = srv.BaseURL()
				rc := llm.CheckRole(context.Background(), role, s, nil)
				require.False(t, rc.OK, name)
				require.Equal(t, "no", rc.FormatOK, name)
				want := fix[name]
				if strings.Contains(want, "%s") {
					want = fmt.Sprintf(want, role)
				}
				require.Contains(t, rc.Verdict, "not with the "+role+" role's reply", name)
				require.Contains(t, rc.Verdict, want, name)
			}
		})
	}
}
