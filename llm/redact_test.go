package llm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

// TestProviderTextsAreRedacted (issue 37, item 7): an endpoint that echoes
// the request's Authorization header, in a 401's body or in a reply, never
// gets the key past the client: the error and the reply hold it redacted,
// and so does a credential of any scheme.
func TestProviderTextsAreRedacted(t *testing.T) {
	const key = "sk-test-5f7c2a9e41d0b8c3"
	const env = "CLINEVO_TEST_REDACT_KEY"
	t.Setenv(env, key)
	srv := llmtest.New(t)
	srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
		switch n {
		case 0:
			return &llmtest.Reply{Status: 401, Content: "Unauthorized: your request sent Authorization: " + r.Auth + " which we did not accept"}
		case 1:
			return &llmtest.Reply{Status: 400, Content: fmt.Sprintf("bad request; debug: api_key=%s; x-api-key: %s; Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", key, key)}
		}
		return &llmtest.Reply{Status: 200, Content: `{"echo": "` + r.Auth + `"}`}
	}
	s := settings.Role{BaseURL: srv.BaseURL(), Model: "m", APIKeyEnv: env, Timeout: settings.Duration(5e9)}
	c, err := llm.NewClient("doctor", s, llm.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	for range 2 {
		_, _, err = c.Chat(ctx, c.Request([]llm.Message{llm.User("hello")}), func(llm.Message) error { return nil })
		require.Error(t, err)
		require.NotContains(t, err.Error(), key)
		require.NotContains(t, err.Error(), "dXNlcjpwYXNzd29yZDEyMw")
		require.Contains(t, err.Error(), "[redacted]")
	}
	msg, _, err := c.Chat(ctx, c.Request([]llm.Message{llm.User("hello")}), func(llm.Message) error { return nil })
	require.NoError(t, err)
	require.Equal(t, `{"echo": "Bearer [redacted]"}`, msg.Content)
	require.True(t, strings.HasPrefix(srv.Requests()[0].Auth, "Bearer "+key), "the key was sent: the endpoint echoed it")
}

// TestProcessSecretsAreRedacted: the process's other secrets (Options.Secrets:
// the results database's password, Qdrant's key) are removed from provider
// texts too; one too short to be a secret is left alone.
func TestProcessSecretsAreRedacted(t *testing.T) {
	const other = "pg-password-0c9d8e7f"
	srv := llmtest.New(t)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: "the password is " + other + "; short stays; a basic metabolic panel and the bearer of bad news stay"}
	}
	s := settings.Role{BaseURL: srv.BaseURL(), Model: "m", Timeout: settings.Duration(5e9)}
	c, err := llm.NewClient("doctor", s, llm.Options{Secrets: []string{other, "short"}})
	require.NoError(t, err)
	msg, _, err := c.Chat(context.Background(), c.Request([]llm.Message{llm.User("hello")}), func(llm.Message) error { return nil })
	require.NoError(t, err)
	require.Equal(t, "the password is [redacted]; short stays; a basic metabolic panel and the bearer of bad news stay", msg.Content,
		"words that read as a credential's scheme are left alone")
}
