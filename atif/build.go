package atif

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/inspectlog"
	"github.com/clinevo/clinevo/internal/buildinfo"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// notes says in every trajectory what clinevo does not record, so that a
// reader does not take an absence for a zero.
const notes = "Exported by clinevo: one trajectory an episode. The doctor is the agent; each of its actions is a tool call " +
	"(the benchmark's tool, or the action: ASK, REQUEST_TEST, CALL_MDT, FINALIZE, ...) and the environment's reply " +
	"(patient, exam, consultant, tool) its observation. Not recorded, so left out: the roles' prompts, the time of " +
	"each step, and per-step token counts (final_metrics are the doctor's for the episode; extra.usage_by_role has every role's)."

// Build is a trajectory an episode of in, in the order of in.Episodes.
func Build(in inspectlog.Input) []Trajectory {
	out := make([]Trajectory, 0, len(in.Episodes))
	for _, e := range in.Episodes {
		out = append(out, trajectory(in, e))
	}
	return out
}

// trajectory is one episode: the opening complaint as the user's step,
// then a step a turn.
func trajectory(in inspectlog.Input, e inspectlog.Episode) Trajectory {
	r := e.Record
	opening := r.CaseID
	if e.Case != nil {
		opening = e.Case.Patient.OpeningComplaint
	}
	t := Trajectory{SchemaVersion: SchemaVersion, SessionID: r.EpisodeID, Agent: agentOf(in), Notes: notes,
		Steps: []Step{{StepID: 1, Source: "user", Message: opening}}, Extra: extraOf(r, in.Bench)}
	for _, ev := range e.Trace.Events {
		t.Steps = append(t.Steps, step(in.Bench, len(t.Steps)+1, ev))
	}
	t.FinalMetrics = finalMetrics(r, len(t.Steps))
	return t
}

// agentOf is the doctor as ATIF's agent: clinevo's build, and the model
// where a model plays it.
func agentOf(in inspectlog.Input) Agent {
	a := Agent{Name: "clinevo-doctor", Version: buildinfo.Version(), Extra: map[string]any{"run": in.Run.Run, "kind": in.Run.Kind,
		"backend": string(in.Settings.Roles["doctor"].Backend)}}
	if in.Bench != nil {
		a.Extra["benchmark"] = in.Bench.Name()
	}
	if d := in.Settings.Roles["doctor"]; d.Backend == settings.OpenAI {
		a.ModelName = d.ProviderName() + "/" + d.Model
	}
	return a
}

// step is one turn: the action as a tool call, the doctor's rationale as
// its reasoning, the reply (if any) as the call's observation.
func step(b bench.Benchmark, id int, ev clinic.Event) Step {
	d := bench.Describe(b, ev)
	msg := string(ev.Action)
	if d.Target != "" {
		msg += ": " + d.Target
	}
	call := Call{ToolCallID: fmt.Sprintf("turn-%d", ev.Turn), FunctionName: string(ev.Action), Arguments: arguments(d.Step)}
	if d.Said == "tool" && d.Name != "" {
		call.FunctionName, call.Arguments = d.Name, map[string]any{}
		if d.Detail != "" && json.Unmarshal([]byte(d.Detail), &call.Arguments) != nil {
			call.Arguments = map[string]any{"raw": d.Detail} // arguments that are no JSON object, as the trace kept them
		}
	}
	s := Step{StepID: id, Source: "agent", Message: msg, ReasoningContent: strings.Join(ev.Rationale, "\n"), ToolCalls: []Call{call},
		Extra: map[string]any{"turn": ev.Turn, "status": string(ev.Status), "cost_usd": ev.Cost}}
	if len(ev.WorkingDiagnoses) > 0 {
		s.Extra["working_diagnoses"] = ev.WorkingDiagnoses
	}
	if len(ev.RetrievedCards) > 0 {
		s.Extra["retrieved_cards"] = ev.RetrievedCards
	}
	if ev.LLMError {
		s.Extra["llm_error"] = true
	}
	if ev.Reply != "" {
		s.Observation = &Observation{Results: []ObservationResult{{SourceCallID: call.ToolCallID, Content: ev.Reply}}}
	}
	return s
}

// arguments are an action's fields but its kind and the doctor's reasoning
// (the step's reasoning_content and extra hold those).
func arguments(a *clinic.DoctorOutput) map[string]any {
	out := map[string]any{}
	if a == nil {
		return out
	}
	raw, err := json.Marshal(a)
	if err != nil || json.Unmarshal(raw, &out) != nil {
		return map[string]any{}
	}
	for _, k := range []string{"action", "rationale", "working_diagnoses", "topic"} {
		delete(out, k)
	}
	return out
}

// extraOf is what the trajectory says of its episode besides ATIF's
// fields: where it sits in the run, how it ended and its scores.
func extraOf(r results.Record, b bench.Benchmark) map[string]any {
	scores := map[string]any{"s": r.Scores.S, "diagnosis": r.Scores.Diagnosis, "strict": r.Scores.Strict, "pass": r.Scores.Pass,
		"encounter_cost_usd": r.Scores.Cost, "t": r.Scores.T, "e": r.Scores.E}
	if bench.ShowsU(b) {
		scores["u"] = r.Scores.U
	}
	for name, v := range r.Scores.Metrics {
		scores[name] = v
	}
	out := map[string]any{"run": r.Run, "case_id": r.CaseID, "pass": r.Pass, "stage": r.Stage, "index": r.Index, "condition": r.Condition,
		"termination": string(r.Termination), "final": r.Final, "scores": scores, "written_cards": r.Written, "labels": r.Labels}
	if r.Epoch > 0 { // a play of a held-out evaluation's epochs
		out["epoch"] = r.Epoch
	}
	return out
}

// finalMetrics are the doctor's model use over the episode (the agent's),
// with every role's in extra.
func finalMetrics(r results.Record, steps int) *FinalMetrics {
	d := r.Usage["doctor"]
	fm := &FinalMetrics{TotalPromptTokens: d.PromptTokens, TotalCompletionTokens: d.CompletionTokens, TotalCachedTokens: d.CachedTokens,
		TotalCostUSD: d.CostUSD, TotalSteps: steps}
	if len(r.Usage) > 0 {
		fm.Extra = map[string]any{"usage_by_role": r.Usage}
	}
	return fm
}
