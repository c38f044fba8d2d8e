// Package inspectlog writes clinevo runs as inspect_ai eval logs, so that
// `inspect view` lists and opens them: one log a run (an experiment: one a
// condition, as inspect's eval sets write them), one sample an episode, with
// the episode's turns as messages and events, its scores and its metadata.
//
// Field names and meanings follow inspect_ai's log schema (EvalLog, EvalSpec,
// EvalSample, Score, ChatMessage*, ModelEvent, ToolEvent, InfoEvent,
// ScoreEvent) as of inspect_ai 0.3.260-7-g499e6152e (commit
// 499e6152e7b8fc8cbd8ac5283536572aa6e4ab17, src/inspect_ai/log/_log.py and
// src/inspect_ai/_view/inspect-openapi.json); the test validates the output
// against the schema derived from that commit
// (scripts/derive-inspect-schema.py,
// internal/logschema/testdata/inspect_eval_log.schema.json). Both of
// inspect's formats are written: .eval (a zip, its default) and .json.
package inspectlog

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
	Samples     []Sample       `json:"samples,omitempty"` // none in an .eval log's header
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
	Config              Config            `json:"config"`
	Packages            map[string]string `json:"packages"`
	Metadata            map[string]any    `json:"metadata"`
}

// Config is inspect's EvalConfig, of which clinevo fills the epochs: the
// most times a case was played in the log.
type Config struct {
	Epochs int `json:"epochs"`
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

// Sample is inspect's EvalSample: one episode. Its ID is the case's and its
// epoch the epoch of its record (a held-out evaluation of several epochs:
// results.Record.Epoch), else the case's repetition in the log (1 for a
// case's first episode, 2 for its second, ...); an episode's pass of the
// stream is in the metadata, as it is not an epoch.
type Sample struct {
	ID          string            `json:"id"`
	Epoch       int               `json:"epoch"`
	UUID        string            `json:"uuid"`
	Input       string            `json:"input"`
	Target      []string          `json:"target"`
	Messages    []Message         `json:"messages"`
	Output      Output            `json:"output"`
	Scores      map[string]Score  `json:"scores"`
	Metadata    map[string]any    `json:"metadata"`
	Store       map[string]any    `json:"store"`
	Events      []any             `json:"events"` // ModelEvent, ToolEvent, InfoEvent, ScoreEvent
	ModelUsage  map[string]Usage  `json:"model_usage"`
	RoleUsage   map[string]Usage  `json:"role_usage"`
	Attachments map[string]string `json:"attachments"`
	// TotalTime and WorkingTime are the episode's recorded activity time
	// (results.Record.TimeMS); clinevo records no start and end times of an
	// episode, so started_at and completed_at are left out.
	TotalTime   *float64 `json:"total_time,omitempty"`
	WorkingTime *float64 `json:"working_time,omitempty"`
	TurnCount   int      `json:"turn_count"`
}

// Message is an inspect ChatMessage (system, user or assistant).
type Message struct {
	Role     string         `json:"role"`
	Content  string         `json:"content"`
	Source   string         `json:"source,omitempty"` // input | generate
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Output is inspect's ModelOutput: the episode's final answer, or a model
// event's reply.
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
