package inspectlog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/view"
)

// Episode is what a sample is made from: an episode's record and trace and,
// when the corpus is at hand, its case (nil: the input and target are the
// case's ID and nothing).
type Episode struct {
	Record results.Record
	Trace  clinic.Trace
	Case   *clinic.Case
}

// Input is what a log is built from: a run (its Completed empty while it
// has not finished), the settings it ran with, its benchmark (nil: one this
// build lacks, read by the shared reading), and its episodes in case order.
type Input struct {
	Run      results.Run
	Settings settings.Settings
	Bench    bench.Benchmark
	Episodes []Episode
}

// Build is the eval log of a run's episodes. A run with a completion time is
// a success; one without is still started (inspect's statuses).
func Build(in Input) Log {
	run := in.Run
	run.Created, run.Completed = isoTime(run.Created), isoTime(run.Completed)
	l := Log{Version: 2, Status: "success", Tags: []string{"clinevo", run.Kind},
		Metadata: map[string]any{"clinevo_run": run.Run, "kind": run.Kind, "event_times": "not recorded: events carry the run's creation time and working_start 0"},
		Plan:     Plan{Name: "plan", Config: map[string]any{}}}
	if run.Completed == "" {
		l.Status = "started"
	}
	id := shortID("eval:" + run.Run)
	l.Eval = Spec{EvalID: id, RunID: shortID("run:" + run.Run), Created: run.Created, Task: "clinevo/" + run.Run, TaskID: shortID("task:" + run.Run),
		TaskAttribs: map[string]any{}, TaskArgs: map[string]any{}, TaskArgsPassed: map[string]any{}, Model: modelOf(in.Settings),
		ModelGenerateConfig: map[string]any{}, ModelArgs: map[string]any{}, Packages: map[string]string{"clinevo": "dev"},
		Metadata: map[string]any{"workflow_id": run.WorkflowID, "run": run.Run, "kind": run.Kind}}
	l.Eval.Dataset = Dataset{Name: run.Run, Location: run.Run, SampleIDs: []string{}}
	l.Stats = Stats{StartedAt: run.Created, CompletedAt: run.Completed, ModelUsage: map[string]Usage{}, RoleUsage: map[string]Usage{}, ConnectionLimitHistory: []any{}}
	for _, role := range bench.RunRoles(in.Bench) {
		if role == "embeddings" {
			continue // not a solver: it serves memory retrieval
		}
		l.Plan.Steps = append(l.Plan.Steps, PlanStep{Solver: "clinevo/" + role, Params: map[string]any{}, ParamsPassed: map[string]any{}})
	}
	names := scoreNames(in)
	epochs := map[string]int{}
	for _, e := range in.Episodes {
		s := sample(in, e, names)
		epochs[s.ID]++
		s.Epoch = epochs[s.ID]
		if e.Record.Epoch > 0 { // a held-out evaluation's epochs: the play the record says
			s.Epoch = e.Record.Epoch
		}
		if s.Epoch == 1 {
			l.Eval.Dataset.SampleIDs = append(l.Eval.Dataset.SampleIDs, s.ID)
		}
		l.Eval.Config.Epochs = max(l.Eval.Config.Epochs, s.Epoch)
		l.Samples = append(l.Samples, s)
		for role, u := range s.RoleUsage {
			l.Stats.RoleUsage[role] = add(l.Stats.RoleUsage[role], u)
		}
		for m, u := range s.ModelUsage {
			l.Stats.ModelUsage[m] = add(l.Stats.ModelUsage[m], u)
		}
	}
	l.Eval.Dataset.Samples = len(l.Eval.Dataset.SampleIDs)
	if len(l.Samples) > 0 {
		l.Results = &Results{TotalSamples: len(l.Samples), CompletedSamples: len(l.Samples), Scores: evalScores(names, l.Samples)}
	}
	return l
}

// isoTime is an RFC 3339 time as inspect writes its times (an offset, not
// "Z": 2026-12-05T10:56:48+00:00); a time it cannot read stays as it is.
func isoTime(t string) string {
	p, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return t
	}
	return p.Format("2006-01-02T15:04:05-07:00")
}

// modelOf names the doctor's model as inspect names models (provider/model),
// or clinevo/builtin.
func modelOf(s settings.Settings) string {
	if d := s.Roles["doctor"]; d.Backend == settings.OpenAI {
		return d.ProviderName() + "/" + d.Model
	}
	return "clinevo/builtin"
}

// shortID is a stable identifier of name (inspect's IDs are random; a stable
// one makes a log exported twice the same log): 22 hex digits of its UUIDv5.
func shortID(name string) string {
	return strings.ReplaceAll(uuid.NewSHA1(uuid.NameSpaceURL, []byte("clinevo:"+name)).String(), "-", "")[:22]
}

func add(a, b Usage) Usage {
	return Usage{InputTokens: a.InputTokens + b.InputTokens, OutputTokens: a.OutputTokens + b.OutputTokens,
		TotalTokens: a.TotalTokens + b.TotalTokens, TotalCost: a.TotalCost + b.TotalCost}
}

// scoreNames are the names of the samples' scores in the log's order: S
// first (the headline inspect's viewer shows), then the benchmark's declared
// metrics as it declares them, then the rest by name.
func scoreNames(in Input) []string {
	have := map[string]bool{"diagnosis": true}
	for _, e := range in.Episodes {
		for name := range sharedScores(e.Record.Scores) {
			have[name] = true
		}
		for name := range e.Record.Scores.Metrics {
			have[name] = true
		}
	}
	names := []string{"s"}
	if in.Bench != nil {
		for _, m := range in.Bench.Metrics() {
			if have[m.Name] && !slices.Contains(names, m.Name) {
				names = append(names, m.Name)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// sharedScores are the shared fields of an episode's scores by the names
// the samples give them.
func sharedScores(sc clinic.Scores) map[string]any {
	return map[string]any{"s": sc.S, "diagnosis": sc.Diagnosis, "u": sc.U, "cost_usd": sc.Cost, "t": float64(sc.T), "e": float64(sc.E),
		"strict": sc.Strict, "pass": sc.Pass}
}

// evalScores are inspect's results.scores: one entry a sample score, named
// as the samples name it, with the mean over the samples (true counts 1).
func evalScores(names []string, samples []Sample) []EvalScore {
	var out []EvalScore
	for _, name := range names {
		sum, n := 0.0, 0
		for _, s := range samples {
			switch v := s.Scores[name].Value.(type) {
			case float64:
				sum, n = sum+v, n+1
			case bool:
				if v {
					sum++
				}
				n++
			}
		}
		if n == 0 {
			continue
		}
		out = append(out, EvalScore{Name: name, Scorer: name, Params: map[string]any{},
			Metrics: map[string]Metric{"mean": {Name: "mean", Value: sum / float64(n), Params: map[string]any{}}}})
	}
	return out
}

// sample is one episode as an inspect sample: the opening complaint as the
// input, each turn as the doctor's message (assistant) and the
// environment's reply (user), the turns and scores as events, the final
// output as the sample's output. Its epoch is set by Build.
func sample(in Input, e Episode, names []string) Sample {
	r, t := e.Record, e.Trace
	s := Sample{ID: r.CaseID, UUID: uuid.NewSHA1(uuid.NameSpaceURL, []byte("clinevo:episode:"+r.EpisodeID)).String(), Input: r.CaseID, Target: []string{},
		Scores: map[string]Score{}, Metadata: metadataOf(r), Store: map[string]any{}, ModelUsage: map[string]Usage{}, RoleUsage: map[string]Usage{},
		Attachments: map[string]string{}, TurnCount: r.Turns}
	if e.Case != nil {
		s.Input = e.Case.Patient.OpeningComplaint
		s.Target = append(append(s.Target, e.Case.Manager.Diagnosis.Name), e.Case.Manager.Diagnosis.Acceptable...)
	}
	tr := transcript{b: in.Bench, set: in.Settings, episode: r.EpisodeID, stamp: isoTime(in.Run.Created), msgs: []Message{{Role: "user", Content: s.Input, Source: "input"}}}
	for _, ev := range t.Events {
		tr.turn(ev)
	}
	s.Messages = tr.msgs
	s.Output = finalOutput(modelOf(in.Settings), t)
	answer := strings.Join(r.Final.Diagnosis, "; ")
	for name, v := range sharedScores(r.Scores) {
		s.Scores[name] = Score{Value: v, Answer: answer, History: []any{}}
	}
	for name, v := range r.Scores.Metrics {
		s.Scores[name] = Score{Value: v, Answer: answer, History: []any{}}
	}
	explainScores(s.Scores, in, e)
	tr.scores(names, s.Scores, s.Target)
	s.Events = tr.events
	usageOf(&s, r)
	return s
}

// explainScores gives each score the episode page's explanation of it
// (view.Explain: the formula with the episode's numbers) where it has one;
// the benchmark's own explanation needs the case, which a corpus that did
// not load leaves out.
func explainScores(scores map[string]Score, in Input, e Episode) {
	var set *settings.Settings
	if e.Case != nil {
		set = &in.Settings
	}
	for _, line := range view.Explain(e.Record.Scores, e.Case, set, in.Bench).Lines {
		key := strings.ToLower(line.Name)
		if sc, ok := scores[key]; ok && line.How != "" {
			sc.Explanation = line.How
			scores[key] = sc
		}
	}
}

// metadataOf is what a sample says of its episode besides inspect's fields:
// where it sits in the run (its pass of the stream among them) and what it
// learnt.
func metadataOf(r results.Record) map[string]any {
	return map[string]any{"episode_id": r.EpisodeID, "case_id": r.CaseID, "run": r.Run, "kind": r.Kind, "pass": r.Pass, "stage": r.Stage,
		"index": r.Index, "number": r.Number, "condition": r.Condition, "termination": string(r.Termination), "retrieved_cards": r.Retrieved,
		"written_cards": r.Written, "labels": r.Labels, "llm_error_turns": r.LLMErrorTurns}
}

// finalOutput is the episode's final answer as the sample's output.
func finalOutput(model string, t clinic.Trace) Output {
	final := "diagnosis: " + strings.Join(t.Final.Diagnosis, "; ") + "\nevidence: " + strings.Join(t.Final.Evidence, " | ") +
		"\nplan: " + strings.Join(t.Final.Plan, "; ") + "\nfollow-up: " + strings.Join(t.Final.Followup, "; ")
	o := reply(model, Message{Role: "assistant", Content: final, Source: "generate"})
	if t.Termination != clinic.EndFinalized {
		o.Choices[0].StopReason = "max_tokens" // inspect's nearest reason for a turn limit
	}
	return o
}

// usageOf fills a sample's model use by role and model and its time from
// the record.
func usageOf(s *Sample, r results.Record) {
	for role, u := range r.Usage {
		iu := Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens, TotalCost: u.CostUSD}
		s.RoleUsage[role] = iu
		if u.Model != "" {
			s.ModelUsage[u.Model] = add(s.ModelUsage[u.Model], iu)
		}
	}
	if len(r.TimeMS) == 0 {
		return
	}
	total := 0.0
	for _, phase := range slices.Sorted(maps.Keys(r.TimeMS)) {
		total += r.TimeMS[phase] / 1000
	}
	working := total
	s.TotalTime, s.WorkingTime = &total, &working
}

// fileName is the log's file name as inspect names its own,
// "<created>_<task>_<id>.<format>" with "_", "/", ":" and "+" of each part as
// "-", so that `inspect view --log-dir` lists it: it takes a .json file for
// a log only when its name starts with a timestamp.
func fileName(l Log, f Format) string {
	clean := strings.NewReplacer("_", "-", "/", "-", ":", "-", "+", "-").Replace
	return fmt.Sprintf("%s_%s_%s.%s", clean(l.Eval.Created), clean(strings.TrimPrefix(l.Eval.Task, "clinevo/")), clean(l.Eval.TaskID), f)
}
