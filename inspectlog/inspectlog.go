// Package inspectlog writes clinevo runs as inspect_ai eval logs, so that
// `inspect view` opens them: one log a run, one sample an episode, with the
// episode's turns as messages, its scores and its metadata. Field names follow
// inspect_ai's published log schema (EvalLog, EvalSpec, EvalSample, Score,
// ChatMessage*); its test validates the output against a schema derived from
// it (scripts/derive-inspect-schema.py).
package inspectlog

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// Log is an inspect EvalLog (version 2).
type Log struct {
	Version     int            `json:"version"`
	Status      string         `json:"status"` // started | success | cancelled | error
	Eval        Spec           `json:"eval"`
	Plan        Plan           `json:"plan"`
	Results     *Results       `json:"results"`
	Stats       Stats          `json:"stats"`
	Invalidated bool           `json:"invalidated"`
	Tags        []string       `json:"tags"`
	Metadata    map[string]any `json:"metadata"`
	Samples     []Sample       `json:"samples"`
}

// Spec is inspect's EvalSpec: what was evaluated.
type Spec struct {
	EvalID              string            `json:"eval_id"`
	RunID               string            `json:"run_id"`
	Created             string            `json:"created"`
	Task                string            `json:"task"`
	TaskID              string            `json:"task_id"`
	TaskVersion         int               `json:"task_version"`
	TaskAttribs         map[string]any    `json:"task_attribs"`
	TaskArgs            map[string]any    `json:"task_args"`
	TaskArgsPassed      map[string]any    `json:"task_args_passed"`
	Dataset             Dataset           `json:"dataset"`
	Model               string            `json:"model"`
	ModelGenerateConfig map[string]any    `json:"model_generate_config"`
	ModelArgs           map[string]any    `json:"model_args"`
	Config              map[string]any    `json:"config"`
	Packages            map[string]string `json:"packages"`
	Metadata            map[string]any    `json:"metadata"`
}

// Dataset is inspect's EvalDataset.
type Dataset struct {
	Name      string   `json:"name"`
	Location  string   `json:"location"`
	Samples   int      `json:"samples"`
	SampleIDs []string `json:"sample_ids"`
	Shuffled  bool     `json:"shuffled"`
}

// Plan is inspect's EvalPlan: the solver steps (here, the roles).
type Plan struct {
	Name   string         `json:"name"`
	Steps  []PlanStep     `json:"steps"`
	Config map[string]any `json:"config"`
}

// PlanStep is inspect's EvalPlanStep.
type PlanStep struct {
	Solver       string         `json:"solver"`
	Params       map[string]any `json:"params"`
	ParamsPassed map[string]any `json:"params_passed"`
}

// Results is inspect's EvalResults.
type Results struct {
	TotalSamples     int         `json:"total_samples"`
	CompletedSamples int         `json:"completed_samples"`
	Scores           []EvalScore `json:"scores"`
}

// EvalScore is inspect's EvalScore: one scorer's metrics over the samples.
type EvalScore struct {
	Name    string            `json:"name"`
	Scorer  string            `json:"scorer"`
	Params  map[string]any    `json:"params"`
	Metrics map[string]Metric `json:"metrics"`
}

// Metric is inspect's EvalMetric.
type Metric struct {
	Name   string         `json:"name"`
	Value  float64        `json:"value"`
	Params map[string]any `json:"params"`
}

// Stats is inspect's EvalStats.
type Stats struct {
	StartedAt              string           `json:"started_at"`
	CompletedAt            string           `json:"completed_at"`
	ModelUsage             map[string]Usage `json:"model_usage"`
	RoleUsage              map[string]Usage `json:"role_usage"`
	ConnectionLimitHistory []any            `json:"connection_limit_history"`
}

// Usage is inspect's ModelUsage.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	TotalTokens  int     `json:"total_tokens"`
	TotalCost    float64 `json:"total_cost"`
}

// Sample is inspect's EvalSample: one episode.
type Sample struct {
	ID          string            `json:"id"`
	Epoch       int               `json:"epoch"`
	Input       string            `json:"input"`
	Target      []string          `json:"target"`
	Messages    []Message         `json:"messages"`
	Output      Output            `json:"output"`
	Scores      map[string]Score  `json:"scores"`
	Metadata    map[string]any    `json:"metadata"`
	Store       map[string]any    `json:"store"`
	Events      []any             `json:"events"`
	ModelUsage  map[string]Usage  `json:"model_usage"`
	RoleUsage   map[string]Usage  `json:"role_usage"`
	Attachments map[string]string `json:"attachments"`
	TotalTime   *float64          `json:"total_time,omitempty"`
	TurnCount   int               `json:"turn_count"`
}

// Message is an inspect ChatMessage (system, user or assistant).
type Message struct {
	Role     string         `json:"role"`
	Content  string         `json:"content"`
	Source   string         `json:"source,omitempty"` // input | generate
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Output is inspect's ModelOutput: the episode's final answer.
type Output struct {
	Model      string   `json:"model"`
	Choices    []Choice `json:"choices"`
	Completion string   `json:"completion"`
}

// Choice is inspect's ChatCompletionChoice.
type Choice struct {
	Message    Message `json:"message"`
	StopReason string  `json:"stop_reason"`
}

// Score is inspect's Score.
type Score struct {
	Value       any            `json:"value"`
	Answer      string         `json:"answer,omitempty"`
	Explanation string         `json:"explanation,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	History     []any          `json:"history"`
}

// Episode is what a sample is made from: an episode's record and trace and,
// when the corpus is at hand, its case (nil: the input and target are the
// case's ID and nothing).
type Episode struct {
	Record results.Record
	Trace  clinic.Trace
	Case   *clinic.Case
}

// Build is the eval log of a run's episodes (in case order); b is the run's
// benchmark, which names what its own actions were about.
func Build(run results.Run, model string, episodes []Episode, b bench.Benchmark) Log {
	l := Log{Version: 2, Status: "success", Tags: []string{"clinevo", run.Kind}, Metadata: map[string]any{"clinevo_run": run.Run, "kind": run.Kind},
		Plan: Plan{Name: "plan", Config: map[string]any{}}}
	l.Eval = Spec{EvalID: run.Run, RunID: run.Run, Created: run.Created, Task: "clinevo/" + run.Kind, TaskID: run.WorkflowID, TaskVersion: 0,
		TaskAttribs: map[string]any{}, TaskArgs: map[string]any{}, TaskArgsPassed: map[string]any{}, Model: model,
		ModelGenerateConfig: map[string]any{}, ModelArgs: map[string]any{}, Config: map[string]any{}, Packages: map[string]string{"clinevo": "dev"},
		Metadata: map[string]any{"workflow_id": run.WorkflowID}}
	l.Stats = Stats{StartedAt: run.Created, CompletedAt: "", ModelUsage: map[string]Usage{}, RoleUsage: map[string]Usage{}, ConnectionLimitHistory: []any{}}
	for _, role := range bench.RunRoles(b) {
		if role == "embeddings" {
			continue // not a solver: it serves memory retrieval
		}
		l.Plan.Steps = append(l.Plan.Steps, PlanStep{Solver: "clinevo/" + role, Params: map[string]any{}, ParamsPassed: map[string]any{}})
	}
	sums := map[string]float64{}
	for _, e := range episodes {
		s := sample(e, model, b)
		l.Samples = append(l.Samples, s)
		l.Eval.Dataset.SampleIDs = append(l.Eval.Dataset.SampleIDs, s.ID)
		for name, sc := range s.Scores {
			if v, ok := sc.Value.(float64); ok {
				sums[name] += v
			}
		}
		for role, u := range s.RoleUsage {
			l.Stats.RoleUsage[role] = add(l.Stats.RoleUsage[role], u)
		}
		for m, u := range s.ModelUsage {
			l.Stats.ModelUsage[m] = add(l.Stats.ModelUsage[m], u)
		}
	}
	l.Eval.Dataset.Name, l.Eval.Dataset.Location, l.Eval.Dataset.Samples = run.Run, run.Run, len(episodes)
	if len(episodes) > 0 {
		metrics := map[string]Metric{}
		for _, name := range slices.Sorted(maps.Keys(sums)) {
			metrics["mean_"+name] = Metric{Name: "mean_" + name, Value: sums[name] / float64(len(episodes)), Params: map[string]any{}}
		}
		l.Results = &Results{TotalSamples: len(episodes), CompletedSamples: len(episodes),
			Scores: []EvalScore{{Name: "clinevo", Scorer: "clinevo/manager", Params: map[string]any{}, Metrics: metrics}}}
	}
	return l
}

func add(a, b Usage) Usage {
	return Usage{InputTokens: a.InputTokens + b.InputTokens, OutputTokens: a.OutputTokens + b.OutputTokens,
		TotalTokens: a.TotalTokens + b.TotalTokens, TotalCost: a.TotalCost + b.TotalCost}
}

// sample is one episode as an inspect sample: the opening complaint as the
// input, each turn as the doctor's message (assistant) and the
// environment's reply (user), the final output as the sample's output.
func sample(e Episode, model string, b bench.Benchmark) Sample {
	r, t := e.Record, e.Trace
	s := Sample{ID: r.EpisodeID, Epoch: max(1, r.Pass), Input: r.CaseID, Target: []string{}, Scores: map[string]Score{},
		Metadata: map[string]any{"case_id": r.CaseID, "run": r.Run, "kind": r.Kind, "stage": r.Stage, "index": r.Index, "number": r.Number,
			"condition": r.Condition, "termination": string(r.Termination), "retrieved_cards": r.Retrieved, "written_cards": r.Written,
			"labels": r.Labels, "llm_error_turns": r.LLMErrorTurns},
		Store: map[string]any{}, Events: []any{}, ModelUsage: map[string]Usage{}, RoleUsage: map[string]Usage{}, Attachments: map[string]string{},
		TurnCount: r.Turns}
	if e.Case != nil {
		s.Input = e.Case.Patient.OpeningComplaint
		s.Target = append(append(s.Target, e.Case.Manager.Diagnosis.Name), e.Case.Manager.Diagnosis.Acceptable...)
	}
	s.Messages = append(s.Messages, Message{Role: "user", Content: s.Input, Source: "input"})
	for _, ev := range t.Events {
		text := string(ev.Action)
		if target := bench.Describe(b, ev).Target; target != "" {
			text += ": " + target
		}
		s.Messages = append(s.Messages, Message{Role: "assistant", Content: text, Source: "generate",
			Metadata: map[string]any{"turn": ev.Turn, "status": string(ev.Status), "cost_usd": ev.Cost}})
		if ev.Reply != "" && ev.Action != clinic.Finalize {
			s.Messages = append(s.Messages, Message{Role: "user", Content: ev.Reply, Metadata: map[string]any{"turn": ev.Turn}})
		}
	}
	final := "diagnosis: " + strings.Join(t.Final.Diagnosis, "; ") + "\nevidence: " + strings.Join(t.Final.Evidence, " | ") +
		"\nplan: " + strings.Join(t.Final.Plan, "; ") + "\nfollow-up: " + strings.Join(t.Final.Followup, "; ")
	stop := "stop"
	if t.Termination != clinic.EndFinalized {
		stop = "max_tokens" // inspect's nearest reason for a turn limit
	}
	s.Output = Output{Model: model, Completion: final, Choices: []Choice{{Message: Message{Role: "assistant", Content: final, Source: "generate"}, StopReason: stop}}}
	sc := r.Scores
	answer := strings.Join(r.Final.Diagnosis, "; ")
	for name, v := range map[string]float64{"s": sc.S, "diagnosis": sc.Diagnosis, "u": sc.U, "cost_usd": sc.Cost, "t": float64(sc.T), "e": float64(sc.E)} {
		s.Scores[name] = Score{Value: v, Answer: answer, History: []any{}}
	}
	s.Scores["strict"] = Score{Value: sc.Strict, Answer: answer, History: []any{}}
	s.Scores["pass"] = Score{Value: sc.Pass, Answer: answer, History: []any{}}
	for name, v := range sc.Metrics {
		s.Scores[name] = Score{Value: v, Answer: answer, History: []any{}}
	}
	for role, u := range r.Usage {
		iu := Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens, TotalCost: u.CostUSD}
		s.RoleUsage[role] = iu
		if u.Model != "" {
			s.ModelUsage[u.Model] = add(s.ModelUsage[u.Model], iu)
		}
	}
	if len(r.TimeMS) > 0 {
		total := 0.0
		for _, ms := range r.TimeMS {
			total += ms / 1000
		}
		s.TotalTime = &total
	}
	return s
}

// Write writes the log as DIR/<run>.json (a run ID's slashes as "_"), the
// JSON log format inspect reads, and returns the path. It writes a temporary
// file and renames it, so a failed write leaves no half log.
func Write(dir string, l Log) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	path := filepath.Join(dir, strings.ReplaceAll(l.Eval.RunID, "/", "_")+".json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("inspect export: %w", err)
	}
	return path, nil
}

// Source is what Load reads a run from (a results store).
type Source interface {
	results.Episodes
	Runs(ctx context.Context) ([]results.Run, map[string]int, error)
}

// Load builds the eval log of a recorded run: its records and traces, the
// cases of its corpus where the corpus loads (else the samples name the case
// only), and its benchmark's reading of its actions (its benchmark is the
// one of set its settings name). A run no store records is an error naming
// it.
func Load(ctx context.Context, src Source, benches bench.Set, runID string) (Log, error) {
	runs, _, err := src.Runs(ctx)
	if err != nil {
		return Log{}, fmt.Errorf("inspect export: %w", err)
	}
	i := slices.IndexFunc(runs, func(r results.Run) bool { return r.Run == runID })
	if i < 0 {
		return Log{}, fmt.Errorf("inspect export: run %q is not recorded (clinevo runs list names the runs)", runID)
	}
	run := runs[i]
	var spec struct {
		Corpus   string            `json:"corpus"`
		Settings settings.Settings `json:"settings"`
	}
	_ = json.Unmarshal(run.Spec, &spec) // a spec of an older build: no corpus and the default benchmark
	set := spec.Settings.OrDefault()
	b, _ := benches.Of(set) // an unknown benchmark: the shared reading of actions
	cases := map[string]*clinic.Case{}
	if spec.Corpus != "" {
		if cp, err := corpus.NewLibrary(benches).Load(spec.Corpus); err == nil {
			for j := range cp.Cases {
				cases[cp.Cases[j].ID] = &cp.Cases[j]
			}
		}
	}
	recs, err := src.Records(ctx, runID)
	if err != nil {
		return Log{}, fmt.Errorf("inspect export: %w", err)
	}
	var eps []Episode
	for _, r := range recs {
		_, t, err := src.RecordTrace(ctx, r.EpisodeID)
		if err != nil {
			return Log{}, fmt.Errorf("inspect export: episode %s: %w", r.EpisodeID, err)
		}
		eps = append(eps, Episode{Record: r, Trace: t, Case: cases[r.CaseID]})
	}
	model := "clinevo/builtin"
	if d := set.Roles["doctor"]; d.Backend == settings.OpenAI {
		model = d.ProviderName() + "/" + d.Model
	}
	return Build(run, model, eps, b), nil
}
