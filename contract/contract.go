// Package contract is the workflow contract: the specs that start streams,
// evaluations and experiments, the results they return, workflow IDs, kinds,
// signal, update and query names, and their defaults. Workflows, activities,
// analysis and the command line share it; it imports only the standard
// library and the domain packages, never the Temporal SDK.
package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// TaskQueue is the default task queue of workers and starts.
const TaskQueue = "clinevo"

// Names of signals and queries of a stream.
const (
	SignalPause  = "pause"
	SignalResume = "resume"
	SignalStop   = "stop" // stop after the current episode
	// SignalRaiseBudget carries a stream's new budget (settings.Budget): a
	// stream paused by its budget goes on when the new one is not reached.
	SignalRaiseBudget = "raise-budget"
	// SignalRaiseExperimentBudget carries the new experiment-wide cap
	// (settings.Budget) to one of the experiment's streams: a stream that
	// cap paused goes on when the total is below the new one.
	SignalRaiseExperimentBudget = "raise-experiment-budget"
	QueryProgress               = "progress"
	QueryRules                  = "rules"
	// QueryWaiting asks any clinevo workflow what it waits for (a *Waiting,
	// nil when it waits for nothing).
	QueryWaiting = "waiting"
)

// Names of the updates that steer a stream: the same names as the signals
// that make the same change (which older clients and the Temporal CLI still
// send). Each answers with the stream's Progress after the change, or
// refuses what cannot apply with an application error of type
// UpdateRefused, changing nothing. Pause, resume and stop take no argument;
// the raises take a settings.Budget.
const (
	UpdatePause                 = SignalPause
	UpdateResume                = SignalResume
	UpdateStop                  = SignalStop
	UpdateRaiseBudget           = SignalRaiseBudget
	UpdateRaiseExperimentBudget = SignalRaiseExperimentBudget
	// UpdateRefused is the type of the error with which a stream refuses an
	// update; its message says why.
	UpdateRefused = "Refused"
)

// Waiting is what a workflow waits for while a dependency of one of its
// activities fails transiently: which dependency, how it fails, since when
// and how many attempts failed. The workflow answers it to QueryWaiting
// (WorkflowID is filled in by the reader) and carries the dependency in the
// ClinevoWaiting search attribute meanwhile.
type Waiting struct {
	WorkflowID string    `json:"workflow_id,omitempty"`
	Activity   string    `json:"activity"`
	Dependency string    `json:"dependency"` // results/postgres, memory/qdrant, model roles.doctor, ...
	Class      string    `json:"class"`      // unavailable, timeout, server_error, rate_limited, unknown
	Since      time.Time `json:"since"`      // the first failure
	Attempts   int       `json:"attempts"`   // failed attempts so far
	NextTry    time.Time `json:"next_try"`
	Error      string    `json:"error"` // the last failure's message
}

// MaxRunIDLength bounds a run ID: the longest workflow ID derived from it
// (an episode's, with its case ID) stays readable and within what every
// results store indexes.
const MaxRunIDLength = 64

// ValidateRunID checks a run ID (a stream's run, an experiment's name): 1 to
// 64 letters, digits, '.', '_' and '-', starting with a letter or digit. A run
// ID is a part of workflow IDs ("<run>/stream", "<run>/p1/s01/...") and of
// derived run IDs, so a '/' would make one run's workflows another's.
func ValidateRunID(id string) error {
	const want = "a run ID takes 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. e1-2026.11)"
	switch {
	case id == "":
		return errors.New("the run ID is empty: " + want)
	case len(id) > MaxRunIDLength:
		return fmt.Errorf("run ID %q has %d characters: %s", id, len(id), want)
	}
	for i, r := range id {
		ok := r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || (i > 0 && strings.ContainsRune("._-", r)))
		if !ok {
			return fmt.Errorf("run ID %q holds %q at position %d: %s", id, r, i+1, want)
		}
	}
	return nil
}

// Kind says what a run or an episode is; it is the Kind search attribute and
// the kind of records and runs in the results store.
type Kind string

// Kinds.
const (
	KindStream     Kind = "stream"
	KindStageEval  Kind = "stage_eval"
	KindReplay     Kind = "replay"
	KindHeldOut    Kind = "heldout"
	KindDev        Kind = "dev" // a prompt optimiser's development episodes (evolver.dev)
	KindExperiment Kind = "experiment"
)

// MemoryMode says where a stream's memory starts.
type MemoryMode string

// Memory modes of a stream.
const (
	MemoryDisabled MemoryMode = "disabled" // no cards are read or written
	MemoryEmpty    MemoryMode = "empty"    // start from an empty bank
	MemoryCarry    MemoryMode = "carry"    // read the bank of earlier runs (CarryFrom) and keep writing
)

// Retention modes of a stream.
const (
	RetentionFinal  = "final"  // A[K][j] for every j < K
	RetentionMatrix = "matrix" // A[k][j] for every k ≥ j
)

// Defaults of specs. Zero fields of a spec take these.
const (
	DefaultStageSize       = 50
	DefaultEvalConcurrency = 8
	DefaultActivityTimeout = 120 // seconds
)

// MaxWorkflowIDLength is the longest workflow ID Temporal takes by default
// (its limit.maxIDLength).
const MaxWorkflowIDLength = 1000

// ValidateWorkflowID checks an ID clinevo builds for a workflow (from a run
// ID and a case ID): Temporal carries it in gRPC headers, which hold
// printable ASCII only, and refuses a longer one than MaxWorkflowIDLength.
// Temporal refusing a child's ID fails its parent's workflow task again and
// again, for ever: the workflows check before they start one.
func ValidateWorkflowID(id string) error {
	if len(id) > MaxWorkflowIDLength {
		return fmt.Errorf("workflow ID %.60q... has %d bytes; Temporal takes at most %d", id, len(id), MaxWorkflowIDLength)
	}
	for i, r := range id {
		if r < 0x20 || r > 0x7e {
			return fmt.Errorf("workflow ID %q holds %q at byte %d: Temporal carries workflow IDs as printable ASCII", id, r, i+1)
		}
	}
	return nil
}

// StreamWorkflowID is the workflow ID of a stream run.
func StreamWorkflowID(run string) string { return run + "/stream" }

// EvaluationWorkflowID is the workflow ID of an evaluation run.
func EvaluationWorkflowID(run string) string { return run + "/evaluation" }

// ExperimentWorkflowID is the workflow ID of an experiment.
func ExperimentWorkflowID(name string) string { return name + "/experiment" }

// EpisodeWorkflowID is the stable ID of an episode: <run>/p<pass>/s<stage>/e<index>-<case>.
func EpisodeWorkflowID(run string, pass, stage, index int, caseID string) string {
	return fmt.Sprintf("%s/p%d/s%02d/e%04d-%s", run, pass, stage, index, caseID)
}

// AttemptWorkflowID is the workflow ID of attempt a (2 and up) of a stream
// episode under MaTTS (settings.MaTTS): the episode's own ID with an
// attempt suffix, so every attempt of a case is found beside the first,
// which keeps the episode's ID.
func AttemptWorkflowID(episodeID string, a int) string { return fmt.Sprintf("%s/a%d", episodeID, a) }

// OptimizeWorkflowID is the workflow ID of a stream's development phase.
func OptimizeWorkflowID(run string) string { return run + "/optimize" }

// DevRunID names the development evaluation of candidate slot of
// generation gen (generation 0: the seed) of a run's development phase.
func DevRunID(run string, gen, slot int) string {
	return fmt.Sprintf("%s/dev/g%02d-c%02d", run, gen, slot)
}

// OptimizeSpec is a prompt optimiser's development phase before a stream
// (evolver.method evoprompt or gepa; settings evolver.dev): candidate rule
// books bred from the seed and played on the development cases.
type OptimizeSpec struct {
	RunID                  string            `json:"run_id"` // the stream's run
	Corpus                 string            `json:"corpus"` // the development corpus
	Pass                   int               `json:"pass"`
	Seed                   []clinic.Rule     `json:"seed,omitempty"`
	EvalConcurrency        int               `json:"eval_concurrency,omitempty"`
	ActivityTimeoutSeconds int               `json:"activity_timeout_seconds,omitempty"`
	Settings               settings.Settings `json:"settings"`
}

// OptimizeResult is the rule book the development phase froze and how it
// scored.
type OptimizeResult struct {
	RuleBook   []clinic.Rule `json:"rule_book"`
	Candidates int           `json:"candidates"`
	Best       string        `json:"best"` // the development run that scored it
	Mean       float64       `json:"mean"`
}

// StageEvalRunID names the stage evaluation of stage j.
func StageEvalRunID(run string, j int) string { return fmt.Sprintf("%s/eval-s%02d", run, j) }

// ReplayRunID names the replay of stage j with memory as of the end of stage k.
func ReplayRunID(run string, k, j int) string { return fmt.Sprintf("%s/replay-k%02d-s%02d", run, k, j) }

// StreamOfRunID is the stream run a stage evaluation or replay run ID
// (StageEvalRunID, ReplayRunID) belongs to; any other run is its own.
func StreamOfRunID(run string) string {
	for _, sep := range []string{"/eval-s", "/replay-k"} {
		if base, _, ok := strings.Cut(run, sep); ok {
			return base
		}
	}
	return run
}

// StreamSpec is the input of StreamWorkflow.
type StreamSpec struct {
	RunID   string   `json:"run_id"`
	Corpus  string   `json:"corpus"`             // a JSONL path or builtin:<split>[@seed]
	CaseIDs []string `json:"case_ids,omitempty"` // case order; empty: the corpus order
	Limit   int      `json:"limit,omitempty"`    // play only the first Limit cases (0: all)
	// Order is the seed of a permutation of the played cases (the first
	// Limit, in CaseIDs' or the corpus order): one ordering of an
	// experiment's `orderings` (ExperimentSpec.Orderings); 0 plays them in
	// that order. OrderBlock permutes within consecutive blocks of that many
	// cases (an update stream's stages keep their shifted cases), 0 the
	// whole stream (CaseOrder).
	Order      uint64     `json:"order,omitempty"`
	OrderBlock int        `json:"order_block,omitempty"`
	StageSize  int        `json:"stage_size"` // episodes per stage
	Pass       int        `json:"pass"`       // 1 for a first pass
	Memory     MemoryMode `json:"memory"`     // disabled | empty | carry
	// CarryFrom lists the runs whose memory a carry run reads, oldest first.
	CarryFrom []string `json:"carry_from,omitempty"`
	// FirstEpisode is the episode number before this run's first episode: a carry
	// run continues the numbering of the runs it carries from, so "as of" stays
	// meaningful across the lineage.
	FirstEpisode int `json:"first_episode,omitempty"`
	// RuleBook is the rule book a run starts from (a carry run continues its
	// lineage's book).
	RuleBook               []clinic.Rule     `json:"rule_book,omitempty"`
	StageEval              bool              `json:"stage_eval,omitempty"` // after each stage, re-run it with memory frozen: A[j][j]
	Retention              string            `json:"retention,omitempty"`  // "" | final | matrix
	EvalConcurrency        int               `json:"eval_concurrency,omitempty"`
	ActivityTimeoutSeconds int               `json:"activity_timeout_seconds,omitempty"`
	Settings               settings.Settings `json:"settings"`
	// ExperimentBudget is the cap of the experiment the stream belongs to
	// (ExperimentSpec.Budget), over all its runs; nil: none.
	ExperimentBudget *ExperimentBudget `json:"experiment_budget,omitempty"`
	// State is what the stream carries across Continue-As-New; leave it zero.
	State StreamState `json:"state"`
	// Claim is what this run was first started as (its first workflow run);
	// a restart and every continue-as-new carry it, and the results store
	// refuses another run with the same run ID and another claim. Leave it
	// empty: the stream sets it.
	Claim string `json:"claim,omitempty"`
	// Experiment names the experiment that started this stream as one of
	// its conditions; empty for a stream started on its own. A run ID an
	// experiment claims (ExperimentSpec.ClaimsConditions) is refused to a
	// stream of any other.
	Experiment string `json:"experiment,omitempty"`
	// Unknown lists the top-level keys of the input that are no field of a
	// stream spec, as UnmarshalJSON found them: a stream started from the
	// Temporal CLI with a made-up or misspelt key ("rules": true) is refused
	// at its start (Validate) instead of running without it. Leave it empty.
	Unknown []string `json:"unknown_fields,omitempty"`
}

// streamSpecFields are the JSON names of StreamSpec's fields, sorted.
var streamSpecFields = settings.ExtKeys(StreamSpec{})

// UnmarshalJSON reads a stream spec as encoding/json does, and lists the
// input's keys that are none of its fields in Unknown.
func (s *StreamSpec) UnmarshalJSON(b []byte) error {
	type plain StreamSpec // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	for k := range keys { // the spec passed on (to an activity, a new run) keeps the list
		if !slices.Contains(streamSpecFields, k) && !slices.Contains(p.Unknown, k) {
			p.Unknown = append(p.Unknown, k)
		}
	}
	sort.Strings(p.Unknown)
	*s = StreamSpec(p)
	return nil
}

// StreamState is a stream's cursor and what it has learned so far.
type StreamState struct {
	Cursor   int           `json:"cursor,omitempty"`
	RuleBook []clinic.Rule `json:"rule_book,omitempty"`
	Totals   Totals        `json:"totals,omitempty"`
	Stage    Totals        `json:"stage_totals,omitempty"`
	Paused   bool          `json:"paused,omitempty"`
	Stopping bool          `json:"stopping,omitempty"`
	// PausedBy is why the stream paused on its own ("budget"); empty for a
	// pause signal. Spend is the run's model spend at the last budget check;
	// Budget the budget raised by SignalRaiseBudget (nil: the settings').
	PausedBy string           `json:"paused_by,omitempty"`
	Spend    *Spend           `json:"spend,omitempty"`
	Budget   *settings.Budget `json:"budget,omitempty"`
	// Temperature is the doctor's sampling temperature the learning method
	// chose for the next episode (EvoTest); nil: the settings'.
	Temperature *float64 `json:"temperature,omitempty"`
	// ExperimentSpend is the experiment's spend (all its runs) at the last
	// check of its budget; ExperimentBudget the experiment cap raised for
	// this stream by SignalRaiseBudget while that cap paused it (nil: the
	// spec's).
	ExperimentSpend  *Spend           `json:"experiment_spend,omitempty"`
	ExperimentBudget *settings.Budget `json:"experiment_budget,omitempty"`
	// StageEnds and RuleSnapshots record, per finished stage, the last episode
	// number and the rule book then: what stage evaluations and replays read.
	StageEnds     []int           `json:"stage_ends,omitempty"`
	RuleSnapshots [][]clinic.Rule `json:"rule_snapshots,omitempty"`
}

// WithDefaults fills zero fields with the defaults.
// StageEnd reports whether a cursor of cursor played episodes, of total,
// stands at the end of a stage: the stream ends its stages there, and a
// restart (engine.ResumeState) finds them the same way.
func (s StreamSpec) StageEnd(cursor, total int) bool {
	return cursor%s.StageSize == 0 || cursor == total
}

func (s StreamSpec) WithDefaults() StreamSpec {
	if s.StageSize == 0 {
		s.StageSize = DefaultStageSize
	}
	if s.Pass == 0 {
		s.Pass = 1
	}
	if s.Memory == "" {
		s.Memory = MemoryEmpty
	}
	if s.ActivityTimeoutSeconds == 0 {
		s.ActivityTimeoutSeconds = DefaultActivityTimeout
	}
	if s.EvalConcurrency == 0 {
		s.EvalConcurrency = DefaultEvalConcurrency
	}
	s.Settings = withDefaults(s.Settings)
	return s
}

// withDefaults is the defaults of settings: all of them for settings never
// set, and the durability for settings recorded before it was a setting.
func withDefaults(s settings.Settings) settings.Settings {
	s = s.OrDefault()
	s.Durability = s.Durability.OrDefault()
	return s
}

// Validate checks the fields that need no I/O; the ValidateStream activity
// checks the corpus.
func (s StreamSpec) Validate() error {
	switch {
	case s.RunID == "":
		return fmt.Errorf("stream spec: run_id is required")
	case s.Corpus == "":
		return fmt.Errorf("stream spec: corpus is required")
	case s.Memory != MemoryDisabled && s.Memory != MemoryEmpty && s.Memory != MemoryCarry:
		return fmt.Errorf("stream spec: memory %q, want disabled, empty or carry", s.Memory)
	case s.Memory == MemoryCarry && len(s.CarryFrom) == 0:
		return fmt.Errorf("stream spec: memory carry needs carry_from (the runs whose memory to read)")
	case s.Memory != MemoryCarry && len(s.CarryFrom) > 0:
		return fmt.Errorf("stream spec: carry_from needs memory carry")
	case s.Retention != "" && s.Retention != RetentionFinal && s.Retention != RetentionMatrix:
		return fmt.Errorf("stream spec: retention %q, want final or matrix", s.Retention)
	}
	// A stream that played episodes already was started by a build that
	// read every key it had: a field since removed is not refused halfway.
	if len(s.Unknown) > 0 && s.State.Cursor == 0 {
		return fmt.Errorf("stream spec: unknown field(s) %s; a stream spec's fields are %s", quoteList(s.Unknown), strings.Join(inputFields(), ", "))
	}
	if err := numbers(numberCheck{"stage_size", s.StageSize, StageSizeRange}, numberCheck{"pass", s.Pass, PassRange},
		numberCheck{"order_block", s.OrderBlock, LimitRange},
		numberCheck{"limit", s.Limit, LimitRange}, numberCheck{"first_episode", s.FirstEpisode, EpisodeNumberRange},
		numberCheck{"eval_concurrency", s.EvalConcurrency, EvalConcurrencyRange},
		numberCheck{"activity_timeout_seconds", s.ActivityTimeoutSeconds, ActivityTimeoutRange}); err != nil {
		return fmt.Errorf("stream spec: %w", err)
	}
	// A stream that played episodes already (continued as new, restarted)
	// was checked when it started: a run ID an older clinevo accepted is not
	// refused halfway through its run.
	if err := ValidateRunID(s.RunID); err != nil && s.State.Cursor == 0 {
		return fmt.Errorf("stream spec: run_id: %w", err)
	}
	if err := s.Settings.Validate(); err != nil {
		return fmt.Errorf("stream spec: settings: %w", err)
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

// Totals accumulate episode outcomes for running means.
type Totals struct {
	N      int     `json:"n"`
	S      float64 `json:"s"`
	Strict float64 `json:"strict"`
	U      float64 `json:"u"`
	T      float64 `json:"t"`
	E      float64 `json:"e"`
	Cost   float64 `json:"cost"`
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
	t.Cost += s.Cost
}

// Means returns the running means.
func (t Totals) Means() Means {
	if t.N == 0 {
		return Means{}
	}
	n := float64(t.N)
	return Means{N: t.N, S: t.S / n, Strict: t.Strict / n, U: t.U / n, T: t.T / n, E: t.E / n, Cost: t.Cost / n}
}

// Means are running means of a stream.
type Means struct {
	N      int     `json:"n"`
	S      float64 `json:"s"`
	Strict float64 `json:"strict_accuracy"`
	U      float64 `json:"u"`
	T      float64 `json:"turns"`
	E      float64 `json:"tests"`
	Cost   float64 `json:"cost_usd"`
}

// ScoreSummary is what a workflow history keeps of an episode's scores.
type ScoreSummary struct {
	S           float64 `json:"s"`
	Diagnosis   float64 `json:"diagnosis"`
	Strict      bool    `json:"strict"`
	Pass        bool    `json:"pass"`
	U           float64 `json:"u"`
	T           int     `json:"t"`
	E           int     `json:"e"`
	Cost        float64 `json:"cost_usd"`
	Termination string  `json:"termination"`
}

// Spend is a run's model spend: USD and tokens (prompt and completion).
type Spend struct {
	USD    float64 `json:"usd"`
	Tokens int     `json:"tokens"`
}

// Progress is the answer to the progress query.
type Progress struct {
	Run    string `json:"run"`
	Cursor int    `json:"cursor"`
	Total  int    `json:"total"`
	// Stage is the stage ThisStage holds: the one being played, or at a
	// stage boundary (its evaluation running) the one that just ended.
	Stage int `json:"stage"`
	// Stages is how many stages the stream has.
	Stages   int  `json:"stages"`
	Paused   bool `json:"paused"`
	Stopping bool `json:"stopping"`
	// PausedBy, Spend and Budget: StreamState's; ExperimentSpend and
	// ExperimentBudget those of the experiment's cap, when it has one.
	PausedBy         string           `json:"paused_by,omitempty"`
	Spend            *Spend           `json:"spend,omitempty"`
	Budget           *settings.Budget `json:"budget,omitempty"`
	ExperimentSpend  *Spend           `json:"experiment_spend,omitempty"`
	ExperimentBudget *settings.Budget `json:"experiment_budget,omitempty"`
	Overall          Means            `json:"overall"`
	ThisStage        Means            `json:"this_stage"`
	// Waiting is what the stream itself waits for (its own activities; an
	// episode's waits are the episode's: QueryWaiting).
	Waiting *Waiting `json:"waiting,omitempty"`
}

// StreamResult is what a finished (or stopped) stream returns; a carry run
// continues from it.
type StreamResult struct {
	Run         string        `json:"run"`
	Episodes    int           `json:"episodes"`
	Stopped     bool          `json:"stopped"`
	Overall     Means         `json:"overall"`
	LastEpisode int           `json:"last_episode"` // the episode number a carry run continues from
	MemoryRuns  []string      `json:"memory_runs,omitempty"`
	RuleBook    []clinic.Rule `json:"rule_book,omitempty"`
	StageEnds   []int         `json:"stage_ends,omitempty"`
	Pass        int           `json:"pass,omitempty"`
	Evaluations []EvalResult  `json:"evaluations,omitempty"` // stage evaluations and replays
	// Progress is the stream's last answer to the progress query: where it
	// ended, of how many episodes and stages. A closed stream's status reads
	// it, so that it says what the running stream said ("57 of 200, stage 2
	// of 8"), not a count rebuilt from the stage ends. Nil in the result of a
	// stream that finished before it was recorded.
	Progress *Progress `json:"progress,omitempty"`
}

// CarryFrom is the spec of a run that continues r's memory lineage, episode
// numbering and rule book.
func (r StreamResult) CarryFrom(s StreamSpec) StreamSpec {
	s.Memory = MemoryCarry
	s.CarryFrom = append([]string(nil), r.MemoryRuns...)
	s.FirstEpisode = r.LastEpisode
	s.RuleBook = append([]clinic.Rule(nil), r.RuleBook...)
	s.Pass = len(r.MemoryRuns) + 1
	return s
}

// EvalSpec is the input of EvaluationWorkflow: a set of cases played with
// memory and rules frozen as of an episode, with no write-back.
type EvalSpec struct {
	RunID      string   `json:"run_id"` // the evaluation's own run ID (its records' run)
	Kind       Kind     `json:"kind"`   // stage_eval | replay | heldout
	Label      string   `json:"label,omitempty"`
	Corpus     string   `json:"corpus"`
	CaseIDs    []string `json:"case_ids"`
	Conditions []string `json:"conditions,omitempty"`
	FirstIndex int      `json:"first_index,omitempty"` // index of the first case in its source order (0-based)
	Stage      int      `json:"stage"`                 // the stage evaluated (j)
	Pass       int      `json:"pass"`
	MemoryRuns []string `json:"memory_runs,omitempty"` // empty: no memory (H0)
	AsOf       int      `json:"as_of"`                 // memory as of this episode number
	Rules      []string `json:"rules,omitempty"`       // frozen rule book
	// Epochs plays every case this many times (0 or 1: once), epoch by
	// epoch: play i of the evaluation is case i mod len(CaseIDs) in epoch
	// i / len(CaseIDs) + 1 (Play), its episode ID EpochEpisodeID.
	Epochs                 int               `json:"epochs,omitempty"`
	Concurrency            int               `json:"concurrency"`
	ActivityTimeoutSeconds int               `json:"activity_timeout_seconds"`
	Settings               settings.Settings `json:"settings"`
	// SettingsRef names Settings in the results store: the episodes get it
	// instead of a copy of the settings each. Leave it empty: the evaluation
	// sets it.
	SettingsRef string `json:"settings_ref,omitempty"`
	// Played and Totals are what the evaluation's earlier runs played (it
	// continues as new every EvalBatch plays): how many plays, and their
	// totals. The scores of each case are in its record. Leave them zero.
	Played int    `json:"played,omitempty"`
	Totals Totals `json:"totals,omitzero"`
}

// EvalBatch is how many cases one run of an evaluation plays before it
// continues as new, so that its history stays small however many cases it
// has (clinevo's own choice: with the built-in roles a run's history is
// about 0.75 MiB and 1,350 events, far under Temporal's suggestion to
// continue as new at 4 MiB and 4,096 events; engine/durability measures it).
const EvalBatch = 250

// WithDefaults fills zero fields with the defaults.
func (e EvalSpec) WithDefaults() EvalSpec {
	if e.Concurrency < 1 {
		e.Concurrency = 1
	}
	if e.Pass == 0 {
		e.Pass = 1
	}
	if e.ActivityTimeoutSeconds == 0 {
		e.ActivityTimeoutSeconds = DefaultActivityTimeout
	}
	e.Settings = withDefaults(e.Settings)
	return e
}

// Validate checks an evaluation's fields (after WithDefaults).
func (e EvalSpec) Validate() error {
	switch {
	case e.RunID == "":
		return errors.New("evaluation spec: run_id is required")
	case e.Corpus == "":
		return fmt.Errorf("evaluation %s: corpus is required", e.RunID)
	case len(e.CaseIDs) == 0:
		return fmt.Errorf("evaluation %s: case_ids: at least one is required", e.RunID)
	case len(e.Conditions) != 0 && len(e.Conditions) != len(e.CaseIDs):
		return fmt.Errorf("evaluation %s: %d conditions for %d case_ids", e.RunID, len(e.Conditions), len(e.CaseIDs))
	case e.Kind != KindStageEval && e.Kind != KindReplay && e.Kind != KindHeldOut && e.Kind != KindDev:
		return fmt.Errorf("evaluation %s: kind %q, want stage_eval, replay, heldout or dev", e.RunID, e.Kind)
	case e.AsOf < 0 || e.FirstIndex < 0:
		return fmt.Errorf("evaluation %s: as_of and first_index must not be negative", e.RunID)
	}
	if err := numbers(numberCheck{"concurrency", e.Concurrency, EvalConcurrencyRange}, numberCheck{"epochs", e.Epochs, EpochsRange},
		numberCheck{"activity_timeout_seconds", e.ActivityTimeoutSeconds, ActivityTimeoutRange}); err != nil {
		return fmt.Errorf("evaluation %s: %w", e.RunID, err)
	}
	if err := e.Settings.Validate(); err != nil {
		return fmt.Errorf("evaluation %s: settings: %w", e.RunID, err)
	}
	return nil
}

// EvalResult summarises an evaluation; each case's scores are in its record
// (results.Store.Records of the evaluation's run), so the result stays small
// however many cases there are.
type EvalResult struct {
	RunID string `json:"run_id"`
	Label string `json:"label,omitempty"`
	Stage int    `json:"stage"`
	AsOf  int    `json:"as_of"`
	Means Means  `json:"means"`
}

// ConditionResult is one finished condition of an experiment.
type ConditionResult struct {
	Name   string        `json:"name"`
	Kind   Kind          `json:"kind"`
	Run    string        `json:"run"`
	Stream *StreamResult `json:"stream,omitempty"`
	Eval   *EvalResult   `json:"eval,omitempty"`
}

// ExperimentResult lists the conditions' results in spec order.
type ExperimentResult struct {
	Name       string            `json:"name"`
	Conditions []ConditionResult `json:"conditions"`
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// inputFields are the fields a stream input may set: its own, not the
// ones the stream fills in (its state, claim, unknown fields).
func inputFields() []string {
	return slices.DeleteFunc(slices.Clone(streamSpecFields), func(f string) bool {
		return f == "unknown_fields" || f == "state" || f == "claim"
	})
}
