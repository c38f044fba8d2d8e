// Package results is the results store: the per-turn scratch state of running
// episodes, episode records upserted by episode ID, model use, the model reply
// cache and run descriptions. It holds the types and the interfaces; the
// backends are results/sqlite (a file under the data directory, the default)
// and results/postgres (one database shared by every worker and the CLI), and
// results/resultstest is the conformance suite both pass. Every write is
// idempotent so activities can be retried.
package results

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/clinevo/clinevo/clinic"
)

// ErrNotFound is returned (wrapped) for a missing record.
var ErrNotFound = errors.New("results: not found")

// ErrRunExists is returned (wrapped) by PutRun for a run ID another run
// claimed first: a run ID names one run, forever.
var ErrRunExists = errors.New("results: the run ID names another run")

// Record is one finished episode as the results store keeps it.
type Record struct {
	EpisodeID  string `json:"episode_id"`
	WorkflowID string `json:"workflow_id"`
	Run        string `json:"run"`
	Kind       string `json:"kind"` // stream | stage_eval | replay | heldout
	Pass       int    `json:"pass"`
	Stage      int    `json:"stage"`
	Index      int    `json:"index"` // 1-based position in the run's case order
	// Epoch is the play of its case (1 to K) in a held-out evaluation of
	// K > 1 epochs (contract.EvalSpec.Epochs); 0 for every other episode,
	// which plays its case once. It lives in the record's JSON: no column.
	Epoch         int                `json:"epoch,omitempty"`
	Number        int                `json:"number"` // episode number in the memory lineage
	CaseID        string             `json:"case_id"`
	Condition     string             `json:"condition"`
	Scores        clinic.Scores      `json:"scores"`
	Final         clinic.FinalOutput `json:"final"`
	Termination   clinic.Termination `json:"termination"`
	Turns         int                `json:"turns"`
	Actions       []string           `json:"actions"`          // one line per turn: ACTION target -> status
	Labels        []string           `json:"labels,omitempty"` // process labels per turn
	Retrieved     []string           `json:"retrieved_cards"`
	Written       []string           `json:"written_cards"`
	Evicted       []string           `json:"evicted_cards,omitempty"`
	RuleEdits     []string           `json:"rule_edits,omitempty"`
	LLMErrorTurns []int              `json:"llm_error_turns"`
	Usage         map[string]Usage   `json:"usage,omitempty"` // tokens and cost per role
	// TimeMS is the episode's activity time by phase: diagnose (the turn loop
	// and scoring) and update (grading and evolution).
	TimeMS map[string]float64 `json:"time_ms,omitempty"`
	// RuleBook is the rule book after the Evolve that learned from this
	// episode (with the rest of its batch): what a restarted stream continues
	// from. Stream records carry a list, empty or not; it is null on
	// evaluation records, which learn nothing, and on records of older builds.
	RuleBook []clinic.Rule `json:"rule_book"`
	// Temperature is the doctor temperature the learning method chose
	// with that rule book (EvoTest), for the episodes after the batch; nil:
	// the settings'. A restarted stream continues with it.
	Temperature *float64 `json:"temperature,omitempty"`
	// Attempts are the K attempts of a case played under MaTTS
	// (settings.MaTTS); nil otherwise. The record's own scores are the
	// first attempt's: Pass@1.
	Attempts *Attempts `json:"attempts,omitempty"`
}

// Attempts are the outcomes of the K attempts of one stream case under
// MaTTS, in attempt order (the first is the record's episode).
type Attempts struct {
	IDs  []string  `json:"ids"`
	S    []float64 `json:"s"`
	Pass []bool    `json:"pass"`
	// BestS and BestPass are the best of the K by score: an oracle
	// best-of-K read from the recorded scores, not the paper's
	// Best-of-N, in which a model picks one trajectory (arXiv 2509.25140,
	// A.3).
	BestS    float64 `json:"best_s"`
	BestPass bool    `json:"best_pass"`
}

// SourceOf returns the record of the episode that wrote card c, from the
// records of c's run, or nil when none of them did (the card was imported, or
// the run's records are elsewhere).
func SourceOf(recs []Record, c clinic.Card) *Record {
	for i := range recs {
		if recs[i].Number == c.CreatedEpisode && recs[i].CaseID == c.SourceCase {
			return &recs[i]
		}
	}
	return nil
}

// Usage is model use of one role in one episode.
type Usage struct {
	Model            string  `json:"model,omitempty"` // the model that served the role
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	CacheHits        int     `json:"cache_hits"`
	ExtraFields      int     `json:"extra_fields"` // unknown fields in the role's replies, ignored
	// CachedTokens are the prompt tokens the provider served from its prefix
	// cache, where it reports them (0 where it does not).
	CachedTokens int `json:"cached_tokens,omitempty"`
	// Endpoint, RateLimited, WaitedMS, Limit and LimitAt are the role's
	// endpoint limiter (llm.Limiter) as the role's calls met it: the endpoint
	// (base URL and model), the calls answered 429, the milliseconds calls
	// waited for a slot, a rate window or a Retry-After, and the endpoint's
	// limit of calls in flight after the last call, with when that call ended
	// (Unix milliseconds, the worker's clock). Endpoint, Limit and LimitAt are
	// a reading, not a sum: a sum of accounts keeps the latest (LimitAt).
	Endpoint    string  `json:"endpoint,omitempty"`
	RateLimited int     `json:"rate_limited,omitempty"`
	WaitedMS    float64 `json:"waited_ms,omitempty"`
	Limit       int     `json:"limit,omitempty"`
	LimitAt     int64   `json:"limit_at,omitempty"`
	// ServedModels and Fingerprints are the provider's provenance of the
	// role's replies (llm.Usage): the models the responses named and their
	// system_fingerprints, distinct and sorted. A run's usage (RunUsage)
	// holds every one its episodes met.
	ServedModels []string `json:"served_models,omitempty"`
	Fingerprints []string `json:"fingerprints,omitempty"`
}

// Run describes one stream or evaluation run.
type Run struct {
	Run        string          `json:"run"`
	Kind       string          `json:"kind"`
	WorkflowID string          `json:"workflow_id"`
	Spec       json.RawMessage `json:"spec"`
	Created    string          `json:"created"`
	// Claim is what the run was started as (contract.StreamSpec.Claim): the
	// same run, restarted or continued as new, describes itself with the same
	// claim; another run with the run's ID has another. Empty on runs recorded
	// before claims: the first claim after them is adopted.
	Claim string `json:"claim,omitempty"`
	// Completed is when the run's result was first stored (CompleteRun), as
	// the store's clock read it (RFC 3339, UTC); empty while it has none.
	// Runs fills it; PutRun ignores it.
	Completed string `json:"completed,omitempty"`
	// Terminated is why an operator ended the run (`clinevo stream
	// terminate`, TerminateRun); empty for a run nobody terminated. Runs
	// fills it; PutRun ignores it.
	Terminated string `json:"terminated,omitempty"`
}

// TurnLog is the scratch state of running episodes: each turn's doctor decision
// and environment event. The first write of a turn wins, so a retried activity,
// or two workers racing on the same turn, get back the value stored first:
// an episode is rebuilt from what was stored, never decided twice.
type TurnLog interface {
	// PutDecision stores the doctor's decision for a turn unless one is stored
	// already, and returns the stored one.
	PutDecision(ctx context.Context, episodeID string, turn int, d json.RawMessage) (json.RawMessage, error)
	// Decision returns the stored decision of a turn, or an error wrapping
	// ErrNotFound if none is stored.
	Decision(ctx context.Context, episodeID string, turn int) (json.RawMessage, error)
	// PutEvent stores the event of a turn (ev.Turn) unless one is stored, and
	// returns the stored one.
	PutEvent(ctx context.Context, episodeID string, ev clinic.Event) (clinic.Event, error)
	// Events returns the stored events of the turns below `below`, in order;
	// a missing turn before the last stored one is an error.
	Events(ctx context.Context, episodeID string, below int) ([]clinic.Event, error)
}

// Grading is what passes from Score to Grade, Evolve and Record within one
// episode: the scored trace, its process grade and the evolver's proposal.
type Grading interface {
	// PutTrace stores the scored trace of an episode (the last write wins; a
	// stored grade stays).
	PutTrace(ctx context.Context, t clinic.Trace) error
	// Trace returns the stored trace, or an error wrapping ErrNotFound.
	Trace(ctx context.Context, episodeID string) (clinic.Trace, error)
	// PutGrade stores the process grade (as JSON) of an episode whose trace is
	// stored; without a trace it returns an error wrapping ErrNotFound.
	PutGrade(ctx context.Context, episodeID string, grade any) error
	// Grade decodes the stored grade into v, or returns an error wrapping
	// ErrNotFound.
	Grade(ctx context.Context, episodeID string, v any) error
	// PutProposal stores the evolver's proposal for an episode unless one is
	// stored (the first write wins: a retried Evolve applies the same edits).
	PutProposal(ctx context.Context, episodeID string, v any) error
	// Proposal decodes the stored proposal into v, or returns an error
	// wrapping ErrNotFound.
	Proposal(ctx context.Context, episodeID string, v any) error
}

// Episodes are the records of finished episodes.
type Episodes interface {
	// PutRecord upserts an episode record with its trace by episode ID.
	PutRecord(ctx context.Context, r Record, t clinic.Trace) error
	// Records returns a run's records in case order ("" for every run, by run).
	Records(ctx context.Context, run string) ([]Record, error)
	// RecordTrace returns an episode's record and recorded trace, or an error
	// wrapping ErrNotFound.
	RecordTrace(ctx context.Context, episodeID string) (Record, clinic.Trace, error)
}

// Spend is model use by episode and role. Usage is spend: a retried call is
// spent again and counted again, so additions are sums, not upserts.
type Spend interface {
	// AddUsage adds u to the account of an episode's role.
	AddUsage(ctx context.Context, episodeID string, u Usage, role string) error
	// UsageOf returns an episode's model use by role (empty when none).
	UsageOf(ctx context.Context, episodeID string) (map[string]Usage, error)
	// RunUsage sums the model use of a run's episodes (IDs "<run>/...") by role.
	RunUsage(ctx context.Context, run string) (map[string]Usage, error)
	// AddTime adds milliseconds of activity time to an episode's phase
	// (diagnose or update). Like usage it is spend: a retried activity's time
	// counts again.
	AddTime(ctx context.Context, episodeID, phase string, ms float64) error
	// TimeOf returns an episode's activity time by phase (empty when none).
	TimeOf(ctx context.Context, episodeID string) (map[string]float64, error)
}

// Phases of an episode's activity time (EvoClinician's efficiency analysis:
// time spent inside the episode, and after it on grading and evolution).
const (
	PhaseDiagnose = "diagnose"
	PhaseUpdate   = "update"
)

// ModelCache caches model replies by key; it is the llm.Cache of the roles
// that cache. The first reply stored for a key stays until it is dropped.
type ModelCache interface {
	// Get returns a cached reply; any failure reads as a miss.
	Get(ctx context.Context, key string) (string, bool)
	// Put caches a reply; a failed write only loses the cache entry.
	Put(ctx context.Context, key, reply string)
	// Drop removes a key's entry if it still holds stale (a reply the role no
	// longer accepts); a failed write leaves it, to be dropped next time.
	Drop(ctx context.Context, key, stale string)
}

// SharedSettings keeps run settings by content, so that a workflow passes a
// reference (SettingsRef) to its children instead of a copy of the settings
// in every child's history.
type SharedSettings interface {
	// PutSettings stores settings (their JSON) under their reference; storing
	// them again changes nothing.
	PutSettings(ctx context.Context, ref string, body json.RawMessage) error
	// Settings returns the settings stored under ref, or an error wrapping
	// ErrNotFound.
	Settings(ctx context.Context, ref string) (json.RawMessage, error)
}

// SettingsRef is the reference of settings by content: "sha256:" and the hex
// SHA-256 of their JSON.
func SettingsRef(body json.RawMessage) string {
	h := sha256.Sum256(body)
	return "sha256:" + hex.EncodeToString(h[:])
}

// RunLog describes runs and keeps the results of finished ones.
type RunLog interface {
	// PutRun records a run's description; the first description wins. An
	// empty Created is the time of the call, by the store's clock. A run
	// described with another claim first is an error wrapping ErrRunExists,
	// and the store is unchanged.
	PutRun(ctx context.Context, r Run) error
	// Runs lists every run (by creation time, then name) with its number of
	// episode records.
	Runs(ctx context.Context) ([]Run, map[string]int, error)
	// CompleteRun stores a finished run's result (the last write wins: a rerun
	// of a deterministic run writes the same) and, the first time, when it
	// was stored (Run.Completed).
	CompleteRun(ctx context.Context, run, kind string, result []byte) error
	// RunResult returns a finished run's result, or an error wrapping
	// ErrNotFound.
	RunResult(ctx context.Context, run string) ([]byte, error)
	// TerminateRun records why an operator terminated a described run (the
	// last reason wins); a run the store does not describe is an error
	// wrapping ErrNotFound, and nothing is written.
	TerminateRun(ctx context.Context, run, reason string) error
}

// Store is the whole results store, as the worker and the CLI open it.
type Store interface {
	TurnLog
	Grading
	Episodes
	Spend
	ModelCache
	RunLog
	SharedSettings
	// Counts returns how many episode records and stored turn events there are.
	Counts(ctx context.Context) (records, turns int, err error)
	// Close releases the store.
	Close() error
}
