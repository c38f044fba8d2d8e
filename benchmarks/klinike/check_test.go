package klinike_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

// TestCheckFormatTools: roles check probes a tools doctor with one offered
// function, read by the sandbox doctor's step reader: the fake's call of it
// passes; a call of a tool not offered fails in format.
func TestCheckFormatTools(t *testing.T) {
	srv := llmtest.New(t)
	role := settings.Role{Backend: settings.OpenAI, BaseURL: srv.BaseURL(), Model: "test-model", JSONMode: true, Format: klinike.FormatTools,
		Timeout: settings.Duration(2 * time.Second)}
	rc := llm.CheckRole(context.Background(), "doctor", role, klinike.Benchmark{})
	require.True(t, rc.OK, rc.Verdict)
	require.Equal(t, "yes", rc.Tools)
	srv.Script = func(_ int, r llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Finish: "tool_calls", Message: map[string]any{"tool_calls": []any{map[string]any{"id": "c0", "type": "function",
			"function": map[string]any{"name": "order_everything", "arguments": `{}`}}}}}
	}
	rc = llm.CheckRole(context.Background(), "doctor", role, klinike.Benchmark{})
	require.False(t, rc.OK)
	require.Contains(t, rc.Verdict, `tool "order_everything" is not one of record_check`)
	require.Equal(t, "no", rc.Tools)
}
