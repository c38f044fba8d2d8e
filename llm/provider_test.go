package llm_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

// TestProviderPresets: a preset decides how the request names the token
// limit and whether it sends a seed and JSON mode; a role without a base URL
// gets its provider's usual one.
func TestProviderPresets(t *testing.T) {
	srv := llmtest.New(t)
	for _, tc := range []struct {
		provider   string
		maxField   string
		otherField string
	}{
		{"openai", "max_completion_tokens", "max_tokens"},
		{"ollama", "max_tokens", "max_completion_tokens"},
		{"", "max_tokens", "max_completion_tokens"},
	} {
		t.Run("provider "+tc.provider, func(t *testing.T) {
			c := srv.Client(t, "doctor", func(r *settings.Role) { r.Provider, r.MaxTokens, r.Seed = tc.provider, 300, 7 })
			var out struct{ OK bool }
			n := len(srv.Requests())
			require.NoError(t, c.JSON(context.Background(), c.Request(nil).Messages, &out, nil))
			body := srv.Requests()[n].Body
			require.EqualValues(t, 300, body[tc.maxField])
			require.NotContains(t, body, tc.otherField)
			require.EqualValues(t, 7, body["seed"])
			require.Contains(t, body, "response_format")
		})
	}
	for provider, want := range map[string]string{"vllm": "http://127.0.0.1:8000/v1", "ollama": "http://127.0.0.1:11434/v1",
		"llamacpp": "http://127.0.0.1:8080/v1", "openai": "https://api.openai.com/v1", "azure": "", "custom": ""} {
		require.Equal(t, want, settings.Role{Provider: provider}.Endpoint(), provider)
	}
	err := settings.Roles{"doctor": {Backend: settings.OpenAI, Provider: "azure", Model: "dep"}}.Validate()
	require.ErrorContains(t, err, "roles.doctor.base_url is required for a model-backed role (provider azure has no usual one)")
	require.NoError(t, settings.Roles{"doctor": {Backend: settings.OpenAI, Provider: "Ollama", Model: "llama3.1:8b"}}.Validate())
	err = settings.Roles{"doctor": {Backend: settings.OpenAI, Provider: "bedrock", Model: "m"}}.Validate()
	require.ErrorContains(t, err, `roles.doctor.provider "bedrock", want one of openai, vllm, ollama, llamacpp, azure, custom`)
}
