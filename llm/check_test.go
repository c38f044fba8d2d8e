package llm_test

import (
	"context"
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
		{"good tags", role(good.BaseURL(), func(r *settings.Role) { r.Format = "tags" }), false, "not in the tags format", [4]string{"yes", "yes", "yes", "no"}, "-"},
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
