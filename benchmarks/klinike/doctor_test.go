package klinike_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/benchmarks/klinike/fakellm"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// fake is the fake endpoint with KlinikeBench's doctor and judge scripted.
func fake(t *testing.T) *llmtest.Server {
	srv := llmtest.New(t)
	srv.Script = fakellm.Script
	return srv
}

// klinikeTask is the first synthetic KlinikeBench-style task that exposes order_imaging.
func klinikeTask(t *testing.T) clinic.Case {
	t.Helper()
	for _, c := range klinike.Tasks(7)[klinike.SplitAll] {
		if slices.Contains(sandboxOf(t, &c).Tools, "order_imaging") {
			return c
		}
	}
	t.Fatal("no task exposes order_imaging")
	return clinic.Case{}
}

// TestToolsFormatPlaysAnEncounter: with roles.doctor.format tools the model
// doctor gets the exposed tools as function definitions, asks its question as
// plain text, answers with a tool call, and the call is played by the sandbox.
func TestToolsFormatPlaysAnEncounter(t *testing.T) {
	srv := fake(t)
	c := klinikeTask(t)
	d := runner.Deps{Bench: klinike.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: klinikeSettings()}
	d.Roles.Doctor = klinike.ModelDoctor{C: srv.Client(t, "doctor", func(r *settings.Role) { r.Format = klinike.FormatTools })}
	tr, err := runner.Play(context.Background(), c, d, runner.Meta{RunID: "t", EpisodeID: "t/1", Number: 1})
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 2, "one question, then the tool call")
	first := reqs[0]
	require.Equal(t, sandboxOf(t, &c).Tools, first.Tools, "every exposed tool, in registry order, as a function")
	require.Empty(t, first.ToolChoice, "the doctor may still ask: tool_choice stays auto")
	require.NotContains(t, first.Body, "response_format", "no JSON mode: the patient is spoken to in plain text")
	fns := first.Body["tools"].([]any)
	fn := fns[0].(map[string]any)["function"].(map[string]any)
	require.Equal(t, "function", fns[0].(map[string]any)["type"])
	require.Equal(t, sandboxOf(t, &c).Tools[0], fn["name"])
	require.Contains(t, fn, "parameters", "the JSON schema goes as the function's parameters")
	require.NotContains(t, first.System, "Tools you can call", "function calling: the tools are not repeated in the text")

	require.Len(t, tr.Events, 2)
	require.Equal(t, clinic.Ask, tr.Events[0].Action)
	require.Equal(t, "When did it start and what makes it worse?", tr.Events[0].Question)
	require.Equal(t, clinic.StatusReturned, tr.Events[0].Status)
	last := tr.Events[1]
	require.Equal(t, klinike.ToolCall, last.Action)
	require.Equal(t, "record_diagnosis", callOf(last).Tool)
	require.JSONEq(t, `{"diagnosis":"Migraine","confidence":"low"}`, string(callOf(last).Arguments))
	require.Equal(t, clinic.StatusFinalized, last.Status)
	require.Equal(t, clinic.EndFinalized, tr.Termination)
	require.Equal(t, []string{"Migraine"}, tr.Final.Diagnosis)
	require.Contains(t, tr.Scores.Metrics, "pass1")
}

// TestToolsFormatRepair: a call of a tool the view does not offer gets one
// repair request, which answers the rejected call as a tool message; a
// second bad reply is an llm_error turn. Arguments that break the schema
// are not repaired: the sandbox refuses them.
func TestToolsFormatRepair(t *testing.T) {
	c := klinikeTask(t)
	tests := []struct {
		name     string
		calls    []fakellm.Call // per reply; nil: plain text
		texts    []string
		requests int
		llmError bool
		status   clinic.Status
	}{
		{name: "unknown tool, then a good call", calls: []fakellm.Call{{Name: "order_pet_scan", Arguments: `{}`}, {Name: "get_patient_vitals", Arguments: `{}`}},
			requests: 2, status: clinic.StatusReturned},
		{name: "unknown tool twice", calls: []fakellm.Call{{Name: "order_pet_scan", Arguments: `{}`}, {Name: "order_pet_scan", Arguments: `{}`}},
			requests: 2, llmError: true, status: clinic.StatusUnparseable},
		{name: "arguments that are not JSON, then good ones", calls: []fakellm.Call{{Name: "order_imaging", Arguments: `{modality: CT`}, {Name: "order_imaging", Arguments: `{"modality":"CT","region":"abdomen"}`}},
			requests: 2, status: clinic.StatusReturned},
		{name: "schema violation reaches the sandbox", calls: []fakellm.Call{{Name: "order_imaging", Arguments: `{"modality":"PET","region":"abdomen"}`}},
			requests: 1, status: clinic.StatusInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
				if n < len(tc.calls) {
					return fakellm.Calls(n, tc.calls[n])
				}
				return fakellm.Script(n, r)
			}
			d := runner.Deps{Bench: klinike.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: klinikeSettings()}
			d.Roles.Doctor = klinike.ModelDoctor{C: srv.Client(t, "doctor", func(r *settings.Role) { r.Format = klinike.FormatTools })}
			env, err := d.Start(c, nil)
			require.NoError(t, err)
			dec, err := d.Roles.Doctor.Decide(context.Background(), env.View(nil, nil))
			require.NoError(t, err)
			require.Len(t, srv.Requests(), tc.requests)
			require.Equal(t, tc.llmError, dec.LLMError)
			ev, err := env.Step(context.Background(), episode.StepInput{Output: dec.Output, LLMError: dec.LLMError})
			require.NoError(t, err)
			require.Equal(t, tc.status, ev.Status, ev.Reply)
			if tc.requests == 2 {
				msgs := srv.Requests()[1].Body["messages"].([]any)
				tool := msgs[len(msgs)-2].(map[string]any)
				require.Equal(t, "tool", tool["role"], "the rejected call is answered before the repair request")
				require.Contains(t, tool["content"], "not executed")
			}
			if tc.status == clinic.StatusInvalid {
				require.Contains(t, ev.Reply, "at /modality", "the schema error goes back to the doctor")
				require.Contains(t, klinike.ViewOf(env.View(nil, nil)).ToolResults[0].Text, "value must be one of")
			}
		})
	}
}

// TestJSONSandboxStep: without function calling the doctor replies with one
// JSON object naming the tool and its arguments (an object, or a string
// holding one), and sees the tools and their schemas in the prompt.
func TestJSONSandboxStep(t *testing.T) {
	c := klinikeTask(t)
	tests := []struct {
		name, reply string
		tool        string
		args        string
		repaired    bool
	}{
		{"arguments as an object", `{"action":"TOOL_CALL","tool":"order_imaging","arguments":{"modality":"CT","region":"abdomen"}}`, "order_imaging", `{"modality":"CT","region":"abdomen"}`, false},
		{"arguments as a string holding an object", `{"action":"tool_call","tool":"order_imaging","arguments":"{\"modality\":\"CT\",\"region\":\"abdomen\"}"}`, "order_imaging", `{"modality":"CT","region":"abdomen"}`, false},
		{"no arguments", `{"action":"TOOL_CALL","tool":"get_patient_vitals"}`, "get_patient_vitals", `{}`, false},
		{"an unknown tool is repaired", `{"action":"TOOL_CALL","tool":"order_pet_scan","arguments":{}}`, "record_diagnosis", `{"diagnosis":"Migraine","confidence":"low"}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
				if n == 0 {
					return &llmtest.Reply{Status: 200, Content: tc.reply}
				}
				return fakellm.Script(n, r) // record_diagnosis after the first question line, or at once without one
			}
			d := runner.Deps{Bench: klinike.Benchmark{}, Roles: runner.BuiltinRoles(), Settings: klinikeSettings()}
			doc := klinike.ModelDoctor{C: srv.Client(t, "doctor", nil)}
			env, err := d.Start(c, nil)
			require.NoError(t, err)
			v := env.View(nil, nil)
			if tc.repaired {
				v.Actions = []string{"TOOL_CALL"} // so that the policy's reply to the repair is the tool call
			}
			dec, err := doc.Decide(context.Background(), v)
			require.NoError(t, err)
			require.False(t, dec.LLMError)
			require.Equal(t, klinike.ToolCall, dec.Output.Action)
			require.Equal(t, tc.tool, klinike.CallOf(dec.Output.Ext).Tool)
			require.JSONEq(t, tc.args, string(klinike.CallOf(dec.Output.Ext).Arguments))
			reqs := srv.Requests()
			require.Contains(t, reqs[0].System, "Tools you can call")
			require.Contains(t, reqs[0].System, `order_imaging: Order an imaging study`)
			require.Contains(t, reqs[0].System, `"enum":["X-ray","CT","MRI","ultrasound"]`)
			require.Equal(t, tc.repaired, len(reqs) == 2)
		})
	}
}

// TestMustAskJudge: the model judge's verdicts in topic order give H; a reply
// still malformed after repair falls back to the cue matcher.
func TestMustAskJudge(t *testing.T) {
	c := klinikeTask(t)
	topics := []string{"onset", "allergies"}
	questions := []string{"When did this start?"}
	t.Run("the model's verdicts", func(t *testing.T) {
		srv := fake(t)
		j := klinike.ModelJudge{Shared: llm.Judge{C: srv.Client(t, "judge", nil), Fallback: grader.RubricJudge{}}}
		got, err := j.JudgeMustAsk(context.Background(), &c, topics, questions)
		require.NoError(t, err)
		require.Equal(t, []bool{true, true}, got, "the fake judge says every topic was raised")
		require.Contains(t, srv.Requests()[0].User, "T2. allergies")
	})
	t.Run("malformed twice falls back to the cue matcher", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.Script = func(int, llmtest.Request) *llmtest.Reply {
			return &llmtest.Reply{Status: 200, Content: `{"verdicts":[{"topic":"onset","raised":true}]}`}
		}
		tally := &llm.Tally{}
		j := klinike.ModelJudge{Shared: llm.Judge{C: srv.Client(t, "judge", nil), Fallback: grader.RubricJudge{}}}
		got, err := j.JudgeMustAsk(llm.WithMeter(context.Background(), tally), &c, topics, questions)
		require.NoError(t, err)
		require.Equal(t, []bool{true, false}, got, "the cue matcher: 'start' raises onset, nothing raises allergies")
		require.Len(t, srv.Requests(), 2)
		require.Equal(t, 1, tally.ByRole()["judge_fallback"].Calls)
		require.True(t, strings.Contains(srv.Requests()[1].User, "1 verdicts for 2 topics"))
	})
}
