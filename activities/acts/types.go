package acts

import (
	"encoding/json"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/settings"
)

// EpisodeInput is the input of EpisodeWorkflow and its activities.
type EpisodeInput struct {
	Run       string        `json:"run"`
	EpisodeID string        `json:"episode_id"` // the episode workflow ID
	Kind      contract.Kind `json:"kind"`
	Corpus    string        `json:"corpus"`
	CaseID    string        `json:"case_id"`
	Condition string        `json:"condition,omitempty"`
	Index     int           `json:"index"`
	// Epoch is the play of the case (1 to EvalSpec.Epochs) in an
	// evaluation with epochs; 0 in every other episode.
	Epoch                  int               `json:"epoch,omitempty"`
	Number                 int               `json:"number"`
	Pass                   int               `json:"pass"`
	Stage                  int               `json:"stage"`
	Rules                  []string          `json:"rules,omitempty"`
	MemoryRuns             []string          `json:"memory_runs,omitempty"` // empty: no memory
	AsOf                   int               `json:"as_of,omitempty"`       // frozen memory: read as of this episode number
	Frozen                 bool              `json:"frozen,omitempty"`
	Grade                  bool              `json:"grade,omitempty"` // the episode grades itself after Score (stream episodes)
	ActivityTimeoutSeconds int               `json:"activity_timeout_seconds"`
	Settings               settings.Settings `json:"settings"`
	// SettingsRef names the settings in the results store instead (an
	// evaluation's episodes): the activities read them from there, and the
	// episode waits out outages as Durability says.
	SettingsRef string              `json:"settings_ref,omitempty"`
	Durability  settings.Durability `json:"durability,omitzero"`
	// Temperature is the doctor's sampling temperature for this episode
	// when the learning method chose one (EvoTest); nil: the settings'.
	Temperature *float64 `json:"temperature,omitempty"`
}

// Ref names the finished episode of an input.
func (in EpisodeInput) Ref() EpisodeRef {
	return EpisodeRef{EpisodeID: in.EpisodeID, Corpus: in.Corpus, CaseID: in.CaseID, Index: in.Index, Number: in.Number, Stage: in.Stage, Epoch: in.Epoch}
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

// EpisodeRef names a finished episode for Grade, Evolve and Record.
type EpisodeRef struct {
	EpisodeID string `json:"episode_id"`
	Corpus    string `json:"corpus"`
	CaseID    string `json:"case_id"`
	Index     int    `json:"index"`
	Number    int    `json:"number"`
	Stage     int    `json:"stage"`
	Epoch     int    `json:"epoch,omitempty"` // EpisodeInput.Epoch
	// Attempts are the episode IDs of the case's other attempts under
	// MaTTS (settings.MaTTS), in attempt order; the learning step contrasts
	// them with this one. Empty without MaTTS.
	Attempts []string `json:"attempts,omitempty"`
}

// GradeInput asks for the process grade of one episode.
type GradeInput struct {
	EpisodeRef
	Settings settings.Settings `json:"settings"`
}

// EvolveInput asks the evolver to learn from a batch of graded episodes, in
// order (Evolve), and Learn also to record them.
type EvolveInput struct {
	Run        string            `json:"run"`
	Pass       int               `json:"pass"`
	Episodes   []EpisodeRef      `json:"episodes"`
	RuleBook   []clinic.Rule     `json:"rule_book,omitempty"`
	MemoryRuns []string          `json:"memory_runs,omitempty"` // empty: the run writes no cards
	Settings   settings.Settings `json:"settings"`
}

// EvolveOutput is the new rule book and what each episode wrote and evicted.
type EvolveOutput struct {
	RuleBook []clinic.Rule   `json:"rule_book,omitempty"`
	Lessons  []EpisodeLesson `json:"lessons"`
	// Temperature is the next episode's doctor temperature when the
	// learning method chose one (EvoTest); nil: unchanged.
	Temperature *float64 `json:"temperature,omitempty"`
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
	Kind   contract.Kind `json:"kind"`
	Pass   int           `json:"pass"`
	Lesson EpisodeLesson `json:"lesson"`
	// RuleBook is a stream episode's rule book after its batch's Evolve, kept
	// with its record so a failed stream can restart from it.
	RuleBook []clinic.Rule `json:"rule_book,omitempty"`
	// Temperature is the doctor temperature chosen with RuleBook (EvoTest).
	Temperature *float64 `json:"temperature,omitempty"`
	// Benchmark is the run's benchmark, whose reading of its own actions the
	// record's action lines keep; empty (a workflow of an older build): the
	// shared reading.
	Benchmark string `json:"profile,omitempty"`
	// SettingsRef names the settings of an evaluation episode, which carries
	// them by reference: the benchmark is read from them when Benchmark is empty.
	SettingsRef string `json:"settings_ref,omitempty"`
}

// StreamPlan is the validated case order of a stream, and the spec the
// stream runs with (its defaults resolved; absent from histories recorded
// before ValidateStream resolved them).
type StreamPlan struct {
	CaseIDs    []string             `json:"case_ids"`
	Conditions []string             `json:"conditions"`
	Spec       *contract.StreamSpec `json:"spec,omitempty"`
}

// Ordered is the plan in the ordering of seed and block
// (contract.CaseOrder): the same cases, each with its condition.
func (p StreamPlan) Ordered(seed uint64, block int) StreamPlan {
	if seed == 0 {
		return p
	}
	out := StreamPlan{CaseIDs: make([]string, len(p.CaseIDs)), Conditions: make([]string, len(p.Conditions)), Spec: p.Spec}
	for i, j := range contract.CaseOrder(len(p.CaseIDs), seed, block) {
		out.CaseIDs[i] = p.CaseIDs[j]
		if j < len(p.Conditions) {
			out.Conditions[i] = p.Conditions[j]
		}
	}
	return out
}

// ExperimentPlan is what an experiment resolved before it ran: every
// condition's settings, in condition order, the evaluations' concurrency, and
// how the experiment itself waits out outages (its base settings'
// durability, with the experiment's overrides).
type ExperimentPlan struct {
	Settings        []settings.Settings `json:"settings"`
	EvalConcurrency int                 `json:"eval_concurrency"`
	Durability      settings.Durability `json:"durability"`
}

// RunCompletion records a finished run's result.
type RunCompletion struct {
	Run    string        `json:"run"`
	Kind   contract.Kind `json:"kind"`
	Result any           `json:"result"`
}

// RunResultReply carries a stored run result.
type RunResultReply struct {
	Found  bool            `json:"found"`
	Result json.RawMessage `json:"result,omitempty"`
}

// BreedInput asks for one child of a prompt optimiser's development phase:
// slot of generation gen, bred from the pool (candidates with their
// development scores and runs).
type BreedInput struct {
	Run      string              `json:"run"`
	Corpus   string              `json:"corpus"` // the development corpus
	Gen      int                 `json:"gen"`
	Slot     int                 `json:"slot"`
	Pool     []evolver.Candidate `json:"pool"`
	Settings settings.Settings   `json:"settings"`
}
