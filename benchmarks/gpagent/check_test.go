package gpagent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

// TestCheckFormatTags: roles check probes a tags doctor with the tagged
// format and reads the reply with ParseTags: an ask block passes, a JSON
// reply fails in format with ParseTags' own message; a JSON doctor gets the
// shared JSON probe.
func TestCheckFormatTags(t *testing.T) {
	srv := llmtest.New(t)
	tagged := true
	srv.Script = func(_ int, r llmtest.Request) *llmtest.Reply {
		if r.Role != "check" || !tagged || strings.Contains(r.System, "JSON object") {
			return nil
		}
		return &llmtest.Reply{Status: 200, Content: "<action type=\"ask\">\nquestion: check\n</action>"}
	}
	role := settings.Role{Backend: settings.OpenAI, BaseURL: srv.BaseURL(), Model: "test-model", JSONMode: true, Format: llm.FormatTags,
		Timeout: settings.Duration(2 * time.Second)}
	rc := llm.CheckRole(context.Background(), "doctor", role, gpagent.Benchmark{})
	require.True(t, rc.OK, rc.Verdict)
	tagged = false
	rc = llm.CheckRole(context.Background(), "doctor", role, gpagent.Benchmark{})
	require.False(t, rc.OK)
	require.Contains(t, rc.Verdict, `no <action type="..."> block`)
	role.Format = llm.FormatJSON
	rc = llm.CheckRole(context.Background(), "doctor", role, gpagent.Benchmark{})
	require.True(t, rc.OK, rc.Verdict)
	require.Equal(t, "yes", rc.JSONMode)
}
