package activities

import (
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
)

// Memory modes of a stream.
const (
	MemoryDisabled = "disabled" // no cards are read or written
	MemoryEmpty    = "empty"    // start from an empty bank
	MemoryCarry    = "carry"    // read the bank of earlier runs (CarryFrom) and keep writing
)

// Workflow kinds, stored as the Kind search attribute and in records.
const (
	KindStream    = "stream"
	KindStageEval = "stage_eval"
	KindReplay    = "replay"
	KindHeldOut   = "heldout"
)

// StreamSpec is the input of StreamWorkflow. The fields after the divider are
// the cursor state it carries across Continue-As-New; leave them zero.
type StreamSpec struct {
	RunID     string   `json:"run_id"`
	Corpus    string   `json:"corpus"`               // a JSONL path or builtin:<split>[@seed]
	CaseIDs   []string `json:"case_ids,omitempty"`   // case order; empty: the corpus order
	Limit     int      `json:"limit,omitempty"`      // play only the first Limit cases (0: all)
	StageSize int      `json:"stage_size"`           // episodes per stage
	Pass      int      `json:"pass"`                 // 1 for a first pass
	Memory    string   `json:"memory"`               // disabled | empty | carry
	CarryFrom []string `json:"carry_from,omitempty"` // runs whose memory a carry run reads, oldest first
	// FirstEpisode is the episode number before this run's first episode: a carry
	// run continues the numbering of the runs it carries from, so "as of" stays
	// meaningful across the lineage.
	FirstEpisode           int             `json:"first_episode,omitempty"`
	Rules                  bool            `json:"rules"`           // edit and use the rule book
	RuleBudget             int             `json:"rule_budget"`     // B_P
	MemoryBudget           int             `json:"memory_budget"`   // B_M
	K                      int             `json:"k"`               // cards retrieved per query
	UpdateInterval         int             `json:"update_interval"` // evolve after every N episodes
	Feedback               string          `json:"feedback"`        // score_only | write_back
	SuccessCards           *bool           `json:"success_cards,omitempty"`
	TranscriptOnly         bool            `json:"transcript_only,omitempty"`
	StageEval              bool            `json:"stage_eval,omitempty"` // after each stage, re-run it with memory frozen: A[j][j]
	Retention              string          `json:"retention,omitempty"`  // "" | final (A[K][j]) | matrix (A[k][j] for all k >= j)
	EvalConcurrency        int             `json:"eval_concurrency,omitempty"`
	Env                    EnvSpec         `json:"env"`
	Weights                *grader.Weights `json:"weights,omitempty"`
	ActivityTimeoutSeconds int             `json:"activity_timeout_seconds,omitempty"`

	// ---- carried state ----
	Cursor   int           `json:"cursor,omitempty"`
	RuleBook []clinic.Rule `json:"rule_book,omitempty"`
	Totals   Totals        `json:"totals,omitempty"`
	Stage    Totals        `json:"stage_totals,omitempty"`
	Paused   bool          `json:"paused,omitempty"`
	Stopping bool          `json:"stopping,omitempty"`
	// StageEnds and RuleSnapshots record, per finished stage, the last episode
	// number and the rule book then: what stage evaluations and replays read.
	StageEnds     []int           `json:"stage_ends,omitempty"`
	RuleSnapshots [][]clinic.Rule `json:"rule_snapshots,omitempty"`
}

// EnvSpec mirrors episode.Config in a workflow input.
type EnvSpec struct {
	MaxTurns     int     `json:"max_turns"`
	MaxTests     int     `json:"max_tests"`
	AllowMDT     bool    `json:"allow_mdt"`
	BaseTurnCost float64 `json:"base_turn_cost"`
}

// Config converts to the environment config (default prices).
func (e EnvSpec) Config() episode.Config {
	return episode.Config{MaxTurns: e.MaxTurns, MaxTests: e.MaxTests, AllowMDT: e.AllowMDT, BaseTurnCost: e.BaseTurnCost}
}

// EnvFrom converts an environment config.
func EnvFrom(c episode.Config) EnvSpec {
	return EnvSpec{MaxTurns: c.MaxTurns, MaxTests: c.MaxTests, AllowMDT: c.AllowMDT, BaseTurnCost: c.BaseTurnCost}
}

// Totals accumulate episode outcomes for running means.
type Totals struct {
	N      int     `json:"n"`
	S      float64 `json:"s"`
	Strict float64 `json:"strict"`
	U      float64 `json:"u"`
	T      float64 `json:"t"`
	E      float64 `json:"e"`
}

// Add counts one episode.
func (t *Totals) Add(s ScoreSummary) {
	t.N++
	t.S += s.S
	if s.Strict {
		t.Strict++
	}
	t.U += s.U
	t.T += float64(s.T)
	t.E += float64(s.E)
}

// Means returns the running means.
func (t Totals) Means() Means {
	if t.N == 0 {
		return Means{}
	}
	n := float64(t.N)
	return Means{N: t.N, S: t.S / n, Strict: t.Strict / n, U: t.U / n, T: t.T / n, E: t.E / n}
}

// Means are running means of a stream.
type Means struct {
	N      int     `json:"n"`
	S      float64 `json:"s"`
	Strict float64 `json:"strict_accuracy"`
	U      float64 `json:"u"`
	T      float64 `json:"turns"`
	E      float64 `json:"tests"`
}

// WithDefaults fills zero fields with the defaults.
func (s StreamSpec) WithDefaults() StreamSpec {
	if s.StageSize == 0 {
		s.StageSize = 50
	}
	if s.Pass == 0 {
		s.Pass = 1
	}
	if s.Memory == "" {
		s.Memory = MemoryEmpty
	}
	ev := evolver.DefaultConfig()
	if s.RuleBudget == 0 {
		s.RuleBudget = ev.RuleBudget
	}
	if s.MemoryBudget == 0 {
		s.MemoryBudget = ev.MemoryBudget
	}
	if s.K == 0 {
		s.K = 5
	}
	if s.UpdateInterval == 0 {
		s.UpdateInterval = 1
	}
	if s.Feedback == "" {
		s.Feedback = ev.Mode
	}
	if s.Env.MaxTurns == 0 {
		s.Env = EnvFrom(episode.DefaultConfig())
	}
	if s.ActivityTimeoutSeconds == 0 {
		s.ActivityTimeoutSeconds = 120
	}
	if s.EvalConcurrency == 0 {
		s.EvalConcurrency = 8
	}
	return s
}

// WithRuleBudget sets B_P from configuration, where 0 means a static prompt:
// no rule is edited or shown. The spec holds that as Rules off, because a zero
// RuleBudget field means "the default" to WithDefaults.
func (s StreamSpec) WithRuleBudget(bp int) StreamSpec {
	if bp == 0 {
		s.Rules = false
		return s
	}
	s.RuleBudget = bp
	return s
}

// Validate checks the fields that need no I/O; ValidateStream checks the corpus.
func (s StreamSpec) Validate() error {
	switch {
	case s.RunID == "":
		return fmt.Errorf("stream spec: run_id is required")
	case s.Corpus == "":
		return fmt.Errorf("stream spec: corpus is required")
	case s.StageSize < 1:
		return fmt.Errorf("stream spec: stage_size must be at least 1, got %d", s.StageSize)
	case s.Pass < 1:
		return fmt.Errorf("stream spec: pass must be at least 1, got %d", s.Pass)
	case s.Memory != MemoryDisabled && s.Memory != MemoryEmpty && s.Memory != MemoryCarry:
		return fmt.Errorf("stream spec: memory %q, want disabled, empty or carry", s.Memory)
	case s.Memory == MemoryCarry && len(s.CarryFrom) == 0:
		return fmt.Errorf("stream spec: memory carry needs carry_from (the runs whose memory to read)")
	case s.RuleBudget < 0:
		return fmt.Errorf("stream spec: rule_budget (B_P) must not be negative, got %d", s.RuleBudget)
	case s.MemoryBudget < 1:
		return fmt.Errorf("stream spec: memory_budget (B_M) must be at least 1, got %d", s.MemoryBudget)
	case s.K < 0:
		return fmt.Errorf("stream spec: k must not be negative, got %d", s.K)
	case s.UpdateInterval < 1:
		return fmt.Errorf("stream spec: update_interval must be at least 1, got %d", s.UpdateInterval)
	case s.Feedback != evolver.ScoreOnly && s.Feedback != evolver.WriteBack:
		return fmt.Errorf("stream spec: feedback %q, want %s or %s", s.Feedback, evolver.ScoreOnly, evolver.WriteBack)
	case s.Limit < 0:
		return fmt.Errorf("stream spec: limit must not be negative")
	case s.Retention != "" && s.Retention != "final" && s.Retention != "matrix":
		return fmt.Errorf("stream spec: retention %q, want final or matrix", s.Retention)
	case s.EvalConcurrency < 1:
		return fmt.Errorf("stream spec: eval_concurrency must be at least 1")
	}
	if err := s.Env.Config().Validate(); err != nil {
		return fmt.Errorf("stream spec: env: %w", err)
	}
	if s.Weights != nil {
		if err := s.Weights.Validate(); err != nil {
			return fmt.Errorf("stream spec: weights: %w", err)
		}
	}
	return nil
}

// MemoryRuns is the lineage a stream reads and evicts within.
func (s StreamSpec) MemoryRuns() []string {
	if s.Memory == MemoryDisabled {
		return nil
	}
	return append(append([]string(nil), s.CarryFrom...), s.RunID)
}

// EvolverConfig is the evolver configuration of a stream.
func (s StreamSpec) EvolverConfig() evolver.Config {
	c := evolver.DefaultConfig()
	c.Mode, c.RuleBudget, c.MemoryBudget = s.Feedback, s.RuleBudget, s.MemoryBudget
	c.WriteRules = s.Rules
	c.WriteCards = s.Memory != MemoryDisabled
	c.TranscriptOnly = s.TranscriptOnly
	if s.SuccessCards != nil {
		c.SuccessCards = *s.SuccessCards
	}
	return c
}

// EpisodeInput is the input of EpisodeWorkflow and its activities.
type EpisodeInput struct {
	Run                    string          `json:"run"`
	EpisodeID              string          `json:"episode_id"` // the episode workflow ID
	Kind                   string          `json:"kind"`
	Corpus                 string          `json:"corpus"`
	CaseID                 string          `json:"case_id"`
	Condition              string          `json:"condition,omitempty"`
	Index                  int             `json:"index"`
	Number                 int             `json:"number"`
	Pass                   int             `json:"pass"`
	Stage                  int             `json:"stage"`
	Rules                  []string        `json:"rules,omitempty"`
	K                      int             `json:"k"`
	MemoryRuns             []string        `json:"memory_runs,omitempty"`
	AsOf                   int             `json:"as_of,omitempty"` // frozen memory: read as of this episode number
	Frozen                 bool            `json:"frozen,omitempty"`
	Env                    EnvSpec         `json:"env"`
	Weights                *grader.Weights `json:"weights,omitempty"`
	ActivityTimeoutSeconds int             `json:"activity_timeout_seconds"`
}

// TurnInput names one turn of an episode.
type TurnInput struct {
	EpisodeInput
	Turn int `json:"turn"`
}

// TurnSummary is what the workflow history keeps of a turn: no text.
type TurnSummary struct {
	Action string `json:"action"`
	Status string `json:"status,omitempty"`
	Done   bool   `json:"done,omitempty"`
	Cards  int    `json:"cards,omitempty"`
}

// ScoreSummary is what the history keeps of an episode's scores.
type ScoreSummary struct {
	S           float64 `json:"s"`
	Diagnosis   float64 `json:"diagnosis"`
	Strict      bool    `json:"strict"`
	Pass        bool    `json:"pass"`
	U           float64 `json:"u"`
	T           int     `json:"t"`
	E           int     `json:"e"`
	Termination string  `json:"termination"`
}

// EpisodeRef names a finished episode for Grade, Evolve and Record.
type EpisodeRef struct {
	EpisodeID string `json:"episode_id"`
	Corpus    string `json:"corpus"`
	CaseID    string `json:"case_id"`
	Index     int    `json:"index"`
	Number    int    `json:"number"`
	Stage     int    `json:"stage"`
}

// GradeInput asks for the process grade of one episode.
type GradeInput struct {
	EpisodeRef
	Feedback string  `json:"feedback"`
	Env      EnvSpec `json:"env"`
}

// EvolveInput asks the evolver to learn from a batch of graded episodes, in order.
type EvolveInput struct {
	Run        string        `json:"run"`
	Pass       int           `json:"pass"`
	Episodes   []EpisodeRef  `json:"episodes"`
	RuleBook   []clinic.Rule `json:"rule_book,omitempty"`
	MemoryRuns []string      `json:"memory_runs,omitempty"`
	Spec       EvolveSpec    `json:"spec"`
}

// EvolveSpec carries the evolver settings of a stream.
type EvolveSpec struct {
	Feedback       string `json:"feedback"`
	RuleBudget     int    `json:"rule_budget"`
	MemoryBudget   int    `json:"memory_budget"`
	Rules          bool   `json:"rules"`
	Cards          bool   `json:"cards"`
	SuccessCards   bool   `json:"success_cards"`
	TranscriptOnly bool   `json:"transcript_only,omitempty"`
}

// Config converts to the evolver config.
func (e EvolveSpec) Config() evolver.Config {
	c := evolver.DefaultConfig()
	c.Mode, c.RuleBudget, c.MemoryBudget, c.WriteRules, c.WriteCards, c.SuccessCards, c.TranscriptOnly =
		e.Feedback, e.RuleBudget, e.MemoryBudget, e.Rules, e.Cards, e.SuccessCards, e.TranscriptOnly
	return c
}

// EvolveSpecOf extracts the evolver settings of a stream.
func EvolveSpecOf(s StreamSpec) EvolveSpec {
	c := s.EvolverConfig()
	return EvolveSpec{Feedback: c.Mode, RuleBudget: c.RuleBudget, MemoryBudget: c.MemoryBudget, Rules: c.WriteRules,
		Cards: c.WriteCards, SuccessCards: c.SuccessCards, TranscriptOnly: c.TranscriptOnly}
}

// EvolveOutput is the new rule book and what each episode wrote and evicted.
type EvolveOutput struct {
	RuleBook []clinic.Rule   `json:"rule_book,omitempty"`
	Lessons  []EpisodeLesson `json:"lessons"`
}

// EpisodeLesson is what learning from one episode changed.
type EpisodeLesson struct {
	EpisodeID string   `json:"episode_id"`
	Written   []string `json:"written,omitempty"`
	Evicted   []string `json:"evicted,omitempty"`
	Edits     []string `json:"edits,omitempty"`
}

// RecordInput asks for the episode record to be upserted.
type RecordInput struct {
	EpisodeRef
	Run    string        `json:"run"`
	Kind   string        `json:"kind"`
	Pass   int           `json:"pass"`
	Lesson EpisodeLesson `json:"lesson"`
}

// EvalSpec is the input of EvaluationWorkflow: a set of cases played with
// memory and rules frozen as of an episode, with no write-back.
type EvalSpec struct {
	RunID                  string          `json:"run_id"` // the evaluation's own run ID (its records' run)
	Kind                   string          `json:"kind"`   // stage_eval | replay | heldout
	Label                  string          `json:"label,omitempty"`
	Corpus                 string          `json:"corpus"`
	CaseIDs                []string        `json:"case_ids"`
	Conditions             []string        `json:"conditions,omitempty"`
	FirstIndex             int             `json:"first_index,omitempty"` // index of the first case in its source order (0-based)
	Stage                  int             `json:"stage"`                 // the stage evaluated (j)
	Pass                   int             `json:"pass"`
	MemoryRuns             []string        `json:"memory_runs,omitempty"` // empty: no memory (H0)
	AsOf                   int             `json:"as_of"`                 // memory as of this episode number
	Rules                  []string        `json:"rules,omitempty"`       // frozen rule book
	K                      int             `json:"k"`
	Concurrency            int             `json:"concurrency"`
	Env                    EnvSpec         `json:"env"`
	Weights                *grader.Weights `json:"weights,omitempty"`
	ActivityTimeoutSeconds int             `json:"activity_timeout_seconds"`
}

// EvalResult summarises an evaluation.
type EvalResult struct {
	RunID  string         `json:"run_id"`
	Label  string         `json:"label,omitempty"`
	Stage  int            `json:"stage"`
	AsOf   int            `json:"as_of"`
	Means  Means          `json:"means"`
	Scores []ScoreSummary `json:"scores"` // per case, in case order
}
