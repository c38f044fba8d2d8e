package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/telemetry"
)

// TestSpanTree runs a two-episode stream with a model doctor under an
// in-memory exporter and checks the span tree: model calls and memory queries
// sit under the activity that made them, under the episode workflow, under the
// stream workflow; model spans carry role, model and tokens, and no prompt text.
func TestSpanTree(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	telemetry.Install(tp, nil)
	t.Cleanup(func() { otel.SetTracerProvider(noop.NewTracerProvider()) })

	srv := llmtest.New(t)
	env := enginetest.StartSetup(t, enginetest.Setup{Client: telemetry.ClientOptions})
	runStream(t, env, contract.StreamSpec{RunID: "traced", Corpus: "builtin:stream", Limit: 2, StageSize: 2, Settings: enginetest.ModelSettings(srv, "", "doctor")})
	require.NoError(t, tp.ForceFlush(t.Context()))

	spans := rec.Ended()
	byID := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byID[s.SpanContext().SpanID().String()] = s
	}
	ancestors := func(s sdktrace.ReadOnlySpan) []string {
		var names []string
		for p := s.Parent(); p.IsValid(); {
			ps, ok := byID[p.SpanID().String()]
			if !ok {
				break
			}
			names = append(names, ps.Name())
			p = ps.Parent()
		}
		return names
	}
	var model, mem int
	for _, s := range spans {
		switch s.Name() {
		case "llm.chat":
			model++
			up := ancestors(s)
			require.Contains(t, up, "RunActivity:Decide", "a model call sits under its activity")
			require.Contains(t, up, "RunWorkflow:EpisodeWorkflow")
			require.Contains(t, up, "RunWorkflow:StreamWorkflow")
			attrs := map[string]bool{}
			for _, a := range s.Attributes() {
				attrs[string(a.Key)] = true
			}
			for _, k := range []string{"llm.role", "llm.model", "llm.prompt_tokens", "llm.completion_tokens", "llm.latency_ms"} {
				require.True(t, attrs[k], "model span lacks %s", k)
			}
			require.False(t, attrs["llm.prompt"], "no prompt text unless enabled")
		case "memory.search":
			mem++
			up := ancestors(s)
			require.Contains(t, up, "RunActivity:Decide")
			require.Contains(t, up, "RunWorkflow:StreamWorkflow")
		}
	}
	require.Positive(t, model)
	require.Positive(t, mem, "the second episode queried memory")
	names := map[string]bool{}
	for _, s := range spans {
		names[s.Name()] = true
	}
	for _, n := range []string{"RunActivity:Step", "RunActivity:Score", "RunActivity:Grade", "RunActivity:Learn", "StartChildWorkflow:EpisodeWorkflow"} {
		require.True(t, names[n], "missing span %s", n)
	}
}
