// Package settings is the one value that configures a run: the benchmark
// profile, the episode environment, scoring, the evolver, memory retrieval and
// the role choices. Configuration is read into it once; streams, evaluations and
// experiments carry it in their specs (with per-condition overrides) and every
// activity reads it from there. Default holds the only copy of every default.
// It imports only the standard library: every layer may depend on it.
package settings

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Settings configure one run. The key names (json and mapstructure tags) are
// the configuration file's keys, so an experiment's `settings:` overrides use
// the same spelling as clinevo.yaml.
type Settings struct {
	Benchmark string  `json:"profile" mapstructure:"profile"` // the benchmark: the name of one of the build's benchmarks (bench.Set)
	Episode   Episode `json:"episode" mapstructure:"episode"`
	Scoring   Scoring `json:"scoring" mapstructure:"scoring"`
	Evolver   Evolver `json:"evolver" mapstructure:"evolver"`
	Memory    Memory  `json:"memory" mapstructure:"memory"`
	Roles     Roles   `json:"roles" mapstructure:"roles"`
	// Doctor is how the doctor decides: alone, or as a panel (doctor.mode).
	Doctor Doctor `json:"doctor" mapstructure:"doctor"`
	// Durability is how long the run waits out an outage (durability.go).
	Durability Durability `json:"durability" mapstructure:"durability"`
	// ModelPrices are the price table of models (providers.go): what prices a
	// role that sets no price of its own, in runs and in experiment plans.
	ModelPrices []ModelPrice `json:"model_prices" mapstructure:"model_prices"`
	// Budget caps the model spend of each run (budget.go).
	Budget Budget `json:"budget" mapstructure:"budget"`
}

// MedEvoEval is the default profile: MedEvoEval's question-and-test
// environment (§3.2). The benchmarks of the build (bench.Set)
// are the profiles it accepts.
const MedEvoEval = "medevoeval"

// Episode is the environment: budgets, the consultant, prices and mode.
type Episode struct {
	MaxTurns     int     `json:"max_turns" mapstructure:"max_turns"`           // Tmax: turns including the final one
	MaxTests     int     `json:"max_tests" mapstructure:"max_tests"`           // Emax: billable test requests
	MDT          string  `json:"mdt" mapstructure:"mdt"`                       // off | consultant | same_model
	BaseTurnCost float64 `json:"base_turn_cost" mapstructure:"base_turn_cost"` // USD per turn
	// Prices override catalog price categories (physical_exam, cbc, ct, ...).
	Prices map[string]float64 `json:"prices" mapstructure:"prices"`
	// UnknownTestPrice is what a free-text test request that matches nothing in
	// the cost table pays (EvoClinician appendix: one fixed default cost).
	UnknownTestPrice float64 `json:"unknown_test_price" mapstructure:"unknown_test_price"`
	// Mode is interactive (the doctor earns every fact) or static (the whole
	// case in one view, one turn to finalise: MedEvoEval's full-vignette
	// baseline, or a benchmark's single-turn chart mode).
	Mode string `json:"mode" mapstructure:"mode"`
	// Ext are the episode keys the benchmarks add, by name, written inline
	// with the shared ones (ext.go); each benchmark declares, defaults and
	// validates its own.
	Ext map[string]any `json:"-" mapstructure:",remain"`
}

// MDT modes.
const (
	MDTOff        = "off"        // no consultant: CALL_MDT is an invalid action
	MDTConsultant = "consultant" // the consultant role (roles.consultant)
	MDTSameModel  = "same_model" // the consultant runs on the doctor's model
)

// Episode modes.
const (
	Interactive = "interactive"
	Static      = "static"
)

// Scoring holds the manager's weights and thresholds (MedEvoEval §4, appendix C.1–C.2).
type Scoring struct {
	Diagnosis float64 `json:"w_diagnosis" mapstructure:"w_diagnosis"` // S = w_d·S_diag + w_e·S_evi + w_p·S_plan
	Evidence  float64 `json:"w_evidence" mapstructure:"w_evidence"`
	Plan      float64 `json:"w_plan" mapstructure:"w_plan"`
	Lambda    float64 `json:"lambda" mapstructure:"lambda"`   // λ_evi: hallucination penalty in S_evi (C.1 names it; 0.5 is clinevo's)
	Mu        float64 `json:"mu" mapstructure:"mu"`           // μ_plan: unsafe-plan penalty in S_plan (C.1 names it; 1 is clinevo's)
	PassAt    float64 `json:"pass_at" mapstructure:"pass_at"` // τ_pass (C.1: "a predefined threshold"; 0.7 is clinevo's)
	US        float64 `json:"u_s" mapstructure:"u_s"`         // U = w1·S − w2·T/Tmax − w3·E/Emax − w4·R (C.2)
	UT        float64 `json:"u_t" mapstructure:"u_t"`
	UE        float64 `json:"u_e" mapstructure:"u_e"`
	UR        float64 `json:"u_r" mapstructure:"u_r"`
	MatchAt   float64 `json:"match_at" mapstructure:"match_at"`     // share of a key point's words an item must hold
	SupportAt float64 `json:"support_at" mapstructure:"support_at"` // share of an evidence item's words that must have been revealed
}

// Evolver bounds what the evolver learns and how.
type Evolver struct {
	// Method is the learning method (Methods; docs/learning-methods.md):
	// clinevo's own Diagnose–Grade–Evolve loop, or one of the methods
	// EvoClinician §4 compares it with, or ACE.
	Method       string  `json:"method" mapstructure:"method"`
	Mode         string  `json:"mode" mapstructure:"mode"`                   // write_back (MedEvoEval) | score_only (EvoClinician)
	RuleBudget   int     `json:"rule_budget" mapstructure:"rule_budget"`     // B_P (EvoClinician §3 names it; 12 is clinevo's); 0: no rule book (a static prompt)
	MemoryBudget int     `json:"memory_budget" mapstructure:"memory_budget"` // B_M (EvoClinician §3 names it; 300 is clinevo's)
	KeepReuse    float64 `json:"keep_reuse" mapstructure:"keep_reuse"`       // keep score per counted retrieval
	KeepAge      float64 `json:"keep_age" mapstructure:"keep_age"`           // keep score lost per episode of age
	// CardKinds are the kinds of card the evolver writes: success, correction,
	// rule, advice. [correction] is MedEvoEval's failure-only ablation (D.6).
	CardKinds []string `json:"card_kinds" mapstructure:"card_kinds"`
	// TranscriptOnly learns from the transcript-level score only, without the
	// per-action labels (EvoClinician's ablation).
	TranscriptOnly bool `json:"transcript_only" mapstructure:"transcript_only"`
	// YieldOnly grades actions by clinical yield alone, without resource
	// efficiency (EvoClinician's "yield-only grading" ablation).
	YieldOnly bool `json:"yield_only" mapstructure:"yield_only"`
	// MemoryLabels are the process labels whose turns become memory entries
	// (φ(h_t), a_t, outcome, g_t): EvoClinician keeps HIGH_YIELD and
	// CRITICAL_ERROR turns and other negative (INEFFICIENT) ones; its
	// ablations drop CRITICAL_ERROR or INEFFICIENT.
	MemoryLabels []string `json:"memory_labels" mapstructure:"memory_labels"`
	// UpdateInterval runs Evolve after every N episodes (and at stage ends).
	UpdateInterval int `json:"update_interval" mapstructure:"update_interval"`
	// CiteWindow is W: a full rule book retires the rule least cited by the
	// process grader in the last W episodes (EvoClinician §3, prompt evolution).
	CiteWindow int `json:"cite_window" mapstructure:"cite_window"`
	// LeakNGram and LeakOverlap tune the leak screen (evolver.Screen): a card
	// or rule is rejected when it holds at least LeakOverlap of the
	// LeakNGram-word n-grams, in any order, of a text the episode did not reveal.
	LeakNGram   int     `json:"leak_ngram" mapstructure:"leak_ngram"`
	LeakOverlap float64 `json:"leak_overlap" mapstructure:"leak_overlap"`
	// SameAt is the similarity at which two memories or bullets are about the
	// same thing: Mem0 updates instead of adding, ACE merges the duplicate
	// (clinevo's own default: neither paper gives a number).
	SameAt float64 `json:"same_at" mapstructure:"same_at"`
	// Dev is the development phase of the methods that optimise a prompt
	// before the stream and then freeze it (EvoPrompt, GEPA).
	Dev Dev `json:"dev" mapstructure:"dev"`
	// ICL chooses which past episodes the in-context-learning method keeps.
	ICL ICL `json:"icl" mapstructure:"icl"`
	// MaTTS is ReasoningBank's memory-aware test-time scaling.
	MaTTS MaTTS `json:"matts,omitzero" mapstructure:"matts"`
}

// MaTTS is ReasoningBank's parallel memory-aware test-time scaling
// (arXiv 2509.25140, §3.3): every stream case is played K times, each
// attempt reading memory as of the same episode, and one learning step
// contrasts the K attempts to write the case's memory items. K is the
// paper's scaling factor k (§3.3; §4.3 runs k = 1, 3, 5); 1 (or 0, the
// value of settings from before the key) is no scaling. Only
// evolver.method reasoningbank contrasts attempts (clinevo's choice: the
// other methods learn from one trajectory). Sequential scaling
// (self-refinement) is not built.
type MaTTS struct {
	K int `json:"k" mapstructure:"k"`
}

// Attempts is how many times a stream case is played: K, at least 1.
func (m MaTTS) Attempts() int { return max(1, m.K) }

// ICL is the in-context-learning method's choice (method icl): Episodes is
// correct, StreamBench's Self-StreamICL (Wu et al. 2024, §4.1.2: an input
// and the doctor's own answer are kept only when the feedback marked the
// answer correct), or all, every episode with its verbalised feedback (the
// full-context in-context learning of CL-Bench, arXiv 2606.05661, and issue
// 38). Trace is how an episode is kept: raw, every turn as it was played,
// or compressed, the short lines of the transcripts method (EvoClinician §4's
// memory agent). How many of them the doctor sees is the memory's retrieval
// (memory.retrieval, memory.k, memory.context_tokens); icl keeps every
// episode, so B_M does not evict its examples (Evolver.Bounded).
type ICL struct {
	Episodes string `json:"episodes" mapstructure:"episodes"`
	Trace    string `json:"trace" mapstructure:"trace"`
}

// Kept is the variant, correct for settings from before the key existed.
func (i ICL) Kept() string { return orDefault(i.Episodes, ICLCorrect) }

// Form is how an episode is kept, raw for settings from before the key
// existed (their examples were the turns as played).
func (i ICL) Form() string { return orDefault(i.Trace, ICLRaw) }

// In-context-learning variants (evolver.icl.episodes) and forms
// (evolver.icl.trace).
const (
	ICLCorrect    = "correct"
	ICLAll        = "all"
	ICLRaw        = "raw"
	ICLCompressed = "compressed"
)

// Bounded reports whether B_M (evolver.memory_budget) evicts the run's
// cards: for every method but icl, which keeps every past episode and lets
// the retrieval choose the ones that fit the context (StreamBench's
// Algorithm 2 keeps every correct example; CL-Bench's full-context ICL every
// episode).
func (v Evolver) Bounded() bool { return v.MethodName() != MethodICL }

// Dev is a prompt optimiser's development phase: Generations rounds, each
// proposing Population candidate rule books, every candidate played on the
// first Cases cases of Corpus with no memory. A spec read by experiments
// fills an empty Corpus with the stream corpus's held-out split and refuses
// development cases the stream plays unless Overlap is set
// (experiments.Development); a stream spec that reaches the workflow with
// Corpus empty develops on the stream's own first cases, as before. Merges
// bounds GEPA's merge step (system-aware crossover of two Pareto-front
// candidates, tried once after each generation; 0: none).
// Defaults are clinevo's own, small enough to run offline.
type Dev struct {
	Corpus string `json:"corpus" mapstructure:"corpus"`
	// Overlap lets the development cases be cases the stream plays too
	// (experiments.Development refuses that otherwise: EvoClinician §4 holds
	// the development subset out of the evaluation).
	Overlap bool `json:"overlap" mapstructure:"overlap"`
	// Algorithm is EvoPrompt's evolutionary algorithm: ga, the genetic
	// algorithm, or de, differential evolution (Guo et al., arXiv 2309.08532,
	// the two instantiations); empty is ga.
	Algorithm   string `json:"algorithm" mapstructure:"algorithm"`
	Cases       int    `json:"cases" mapstructure:"cases"`
	Generations int    `json:"generations" mapstructure:"generations"`
	Population  int    `json:"population" mapstructure:"population"`
	Merges      int    `json:"merges" mapstructure:"merges"`
}

// Algo is EvoPrompt's algorithm, ga for settings from before the key existed.
func (d Dev) Algo() string { return orDefault(d.Algorithm, EvoPromptGA) }

// orDefault is v, or def for a key settings from before it leave empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// EvoPrompt's algorithms (evolver.dev.algorithm).
const (
	EvoPromptGA = "ga"
	EvoPromptDE = "de"
)

// Learning methods (evolver.method).
const (
	MethodClinevo     = "clinevo"     // EvoClinician's Diagnose–Grade–Evolve (§3): rules and memory from graded actions
	MethodStatic      = "static"      // a fixed prompt: nothing carried between episodes
	MethodTranscripts = "transcripts" // the memory agent: the newest past transcripts in context
	MethodRAG         = "rag"         // past transcripts retrieved by similarity
	MethodMem0        = "mem0"
	MethodExpRAG      = "exprag"
	MethodReMem       = "remem"
	MethodEvoPrompt   = "evoprompt"
	MethodGEPA        = "gepa"
	MethodEvoTest     = "evotest"
	MethodACE         = "ace"
	MethodICL         = "icl"     // past episodes (inputs and answers) as in-context examples
	MethodMemRL       = "memrl"   // MemRL (arXiv 2601.03192): a utility per card, learned from rewards; similarity then utility
	MethodMemento     = "memento" // Memento (arXiv 2508.16153): cases retrieved by a kernel estimate of Q(s, c)
	// MethodReasoningBank is ReasoningBank (Ouyang et al. 2025, arXiv
	// 2509.25140): strategy items from self-judged successes and lessons
	// from self-judged failures; with evolver.matts its memory-aware
	// test-time scaling.
	MethodReasoningBank = "reasoningbank"
)

// Methods lists every learning method evolver.method accepts.
var Methods = []string{MethodClinevo, MethodStatic, MethodTranscripts, MethodRAG, MethodMem0, MethodExpRAG, MethodReMem,
	MethodEvoPrompt, MethodGEPA, MethodEvoTest, MethodACE, MethodICL, MethodMemRL, MethodMemento, MethodReasoningBank}

// LearnsUtility reports whether the run's method learns a utility for every
// card it retrieved (memrl, memento): those runs credit cards after every
// scored episode, rank retrieval by utility and evict the least useful.
func (v Evolver) LearnsUtility() bool {
	return v.MethodName() == MethodMemRL || v.MethodName() == MethodMemento
}

// Optimises reports whether the method optimises its prompt on a
// development subset before the stream (EvoPrompt, GEPA).
func (v Evolver) Optimises() bool { return v.Method == MethodEvoPrompt || v.Method == MethodGEPA }

// MethodName is the run's learning method, clinevo for settings from before
// the setting existed.
func (v Evolver) MethodName() string {
	if v.Method == "" {
		return MethodClinevo
	}
	return v.Method
}

// Feedback modes.
const (
	WriteBack = "write_back" // MedEvoEval §3.4: the manager writes the answer key back
	ScoreOnly = "score_only" // EvoClinician §4.1: the learner sees the score and cost only
)

// Card kinds the evolver may write: MedEvoEval's success, correction and rule
// cards (§3.4), EvoClinician's advice entries, and transcript summaries (the
// memory-agent and RAG baselines of EvoClinician §4), and the kinds only the
// other learning methods write: Mem0's memory items, Evo-Memory's
// experiences and the in-context examples of icl (evolver.method;
// docs/learning-methods.md).
var CardKinds = []string{"success", "correction", "rule", "advice", "summary", "memory", "experience", "example", "strategy"}

// Process labels (EvoClinician §3: the process grader's label set).
var Labels = []string{"HIGH_YIELD", "LOW_YIELD", "INEFFICIENT", "CRITICAL_ERROR"}

// Memory is retrieval.
type Memory struct {
	K       int    `json:"k" mapstructure:"k"`             // cards shown to the doctor per turn
	Backend string `json:"backend" mapstructure:"backend"` // local | qdrant: the worker must have this backend
	// Retrieval is how the K cards are chosen: similarity (the top K by
	// embedding) or recent (the K newest, EvoClinician's memory-agent baseline
	// that carries the latest transcripts).
	Retrieval string `json:"retrieval" mapstructure:"retrieval"`
	// ContextTokens bounds the retrieved cards' text as well as their number:
	// cards are shown in retrieval order while their texts fit in this many
	// tokens (about four characters a token, the estimate of the model
	// client's rate limiter); 0 is no bound (clinevo's default). With recent
	// retrieval and a large K it puts as many of the latest episodes as fit
	// into the doctor's context (the full-context baseline a reviewer asks for).
	ContextTokens int `json:"context_tokens" mapstructure:"context_tokens"`
	// Utility is how the methods that learn a utility per card (memrl,
	// memento) update and rank it (docs/learning-methods.md).
	Utility Utility `json:"utility" mapstructure:"utility"`
}

// DefaultUtility are the utility constants before configuration.
var DefaultUtility = Utility{Alpha: 0.3, Lambda: 0.5, Initial: 0.5, Recall: 20, Tau: 0.1}

// Utilities are the run's utility constants: DefaultUtility for settings
// from before the key existed (all zero).
func (m Memory) Utilities() Utility {
	if m.Utility == (Utility{}) {
		return DefaultUtility
	}
	return m.Utility
}

// Utility holds the constants of utility learning and ranking. MemRL's
// (arXiv 2601.03192) come from the authors' released configurations
// (github.com/MemTensor/MemRL, configs/rl_*_config.yaml: alpha 0.3,
// weight_q 0.5, q_init 0.5 in the Lifelong Agent Bench one); the paper's
// text names α and λ without values. Recall and Tau are clinevo's choices.
type Utility struct {
	// Alpha is MemRL's step size α in Q ← Q + α(r − Q).
	Alpha float64 `json:"alpha" mapstructure:"alpha"`
	// Lambda is MemRL's weight λ of the normalised utility against the
	// normalised similarity in its value-aware selection (phase B).
	Lambda float64 `json:"lambda" mapstructure:"lambda"`
	// Initial is the utility of a card nothing has credited yet.
	Initial float64 `json:"initial" mapstructure:"initial"`
	// Recall is k1: the cards recalled by similarity (phase A) among which
	// utility chooses memory.k (clinevo's choice: 20, four times the default k).
	Recall int `json:"recall" mapstructure:"recall"`
	// Tau is the temperature of the kernel k(s, s') = exp(sim(s, s')/τ) of
	// Memento's estimate of Q(s, c) (clinevo's choice: 0.1, so that a past
	// state as similar as the present one weighs e^10 ≈ 22,000 times one
	// with nothing in common).
	Tau float64 `json:"tau" mapstructure:"tau"`
}

// Doctor chooses how the doctor role decides.
type Doctor struct {
	// Mode is single (one doctor call a turn) or panel: the five roles of
	// MAI-DxO's virtual panel (Nori et al. 2025) deliberate each turn,
	// on roles.doctor's model (their use counted as doctor.<role>) or
	// built-in.
	Mode string `json:"mode" mapstructure:"mode"`
}

// Doctor modes.
const (
	SingleDoctor = "single"
	PanelDoctor  = "panel"
)

// Panel reports whether the doctor is a panel.
func (d Doctor) Panel() bool { return d.Mode == PanelDoctor }

// Role chooses a role's backend and, for a model, its endpoint and decoding.
// A key never travels: APIKeyEnv names the environment variable that holds it
// on the worker (APIKeyFile a file there).
type Role struct {
	Backend string `json:"backend" mapstructure:"backend"` // builtin | openai
	// Provider is the server's kind (providers.go): its usual base URL and
	// the request options it accepts; empty is custom.
	Provider        string   `json:"provider" mapstructure:"provider"`
	BaseURL         string   `json:"base_url" mapstructure:"base_url"`
	Model           string   `json:"model" mapstructure:"model"`
	Temperature     float32  `json:"temperature" mapstructure:"temperature"`
	TopP            float32  `json:"top_p" mapstructure:"top_p"`
	MaxTokens       int      `json:"max_tokens" mapstructure:"max_tokens"`
	Timeout         Duration `json:"timeout" mapstructure:"timeout"`
	Concurrency     int      `json:"concurrency" mapstructure:"concurrency"` // calls in flight per worker
	APIKeyEnv       string   `json:"api_key_env" mapstructure:"api_key_env"`
	APIKeyFile      string   `json:"api_key_file" mapstructure:"api_key_file"`
	JSONMode        bool     `json:"json_mode" mapstructure:"json_mode"` // send response_format json_object
	Format          string   `json:"format" mapstructure:"format"`       // reply format: json | tags (a benchmark's tagged action format) | tools (function calling)
	Cache           bool     `json:"cache" mapstructure:"cache"`         // cache temperature-0 replies
	PricePrompt     float64  `json:"price_prompt" mapstructure:"price_prompt"`
	PriceCompletion float64  `json:"price_completion" mapstructure:"price_completion"`
	Dim             int      `json:"dim" mapstructure:"dim"` // embeddings only
	// Seed is the sampling seed sent where the provider accepts one; 0: none
	// (clinevo's own choice: no seed unless asked).
	Seed int `json:"seed" mapstructure:"seed"`
	// RPM and TPM cap the requests and tokens per minute of the role's
	// endpoint on this worker (a provider's published rate limits); 0: none.
	// Concurrency is the ceiling the adaptive limit moves under.
	RPM int `json:"rpm" mapstructure:"rpm"`
	TPM int `json:"tpm" mapstructure:"tpm"`
}

// Roles maps role names to their choices.
type Roles map[string]Role

// Role backends.
const (
	Builtin = "builtin"
	OpenAI  = "openai"
)

// TextbookDoctor is the roles.doctor.model that, with the builtin backend,
// chooses the textbook doctor (actor/textbook); any other model leaves the
// case-based doctor, which copies what write-back cards carry.
const TextbookDoctor = "textbook"

// RoleNames lists every shared role, each configurable as roles.<name>; a
// benchmark may add roles of its own (bench.Roles, bench.RunRoles).
var RoleNames = []string{"doctor", "patient", "exam", "consultant", "judge", "grader", "evolver", "embeddings"}

// Duration is a time.Duration written as text ("60s") in files and JSON.
type Duration time.Duration

// MarshalText writes "1m0s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a Go duration ("90s", "2m").
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a value like 60s or 2m", string(b))
	}
	*d = Duration(v)
	return nil
}

// Default returns every default. Those a paper gives cite it: Tmax 10 and
// Emax 3 (MedEvoEval §5), S = 0.5·diag + 0.3·evi + 0.2·plan (§4, C.1),
// U = 0.6·S − 0.2·T/Tmax − 0.1·E/Emax − 0.1·R (§4, C.2), write-back feedback
// (§3.4). The rest are clinevo's choices, each with its reason in
// docs/constants.md: λ 0.5 and μ 1 (C.1 names them without values), pass at
// 0.7 (C.1: "a predefined threshold"), the match shares 0.5, the price table
// and base turn cost, B_P 12, B_M 300, the keep-score weights, W 50 and K 5
// (EvoClinician names B_P, B_M and k and gives no values), the leak screen.
func Default() Settings {
	s := Settings{
		Benchmark: MedEvoEval,
		// The price table (USD) by catalog category: physical examination is free and
		// outside Emax; other is what a test no category rule recognises pays.
		Episode: Episode{MaxTurns: 10, MaxTests: 3, MDT: MDTConsultant, BaseTurnCost: 5, Prices: map[string]float64{
			"physical_exam": 0, "rapid_test": 25, "cbc": 30, "glucose": 30, "chemistry": 35, "urinalysis": 35, "troponin": 40,
			"ecg": 50, "thyroid": 50, "xray": 80, "spirometry": 100, "ultrasound": 250, "ct": 500, "mri": 700, "other": 60},
			UnknownTestPrice: 60, Mode: Interactive},
		Scoring: Scoring{Diagnosis: 0.5, Evidence: 0.3, Plan: 0.2, Lambda: 0.5, Mu: 1, PassAt: 0.7,
			US: 0.6, UT: 0.2, UE: 0.1, UR: 0.1, MatchAt: 0.5, SupportAt: 0.5},
		Evolver: Evolver{Mode: WriteBack, RuleBudget: 12, MemoryBudget: 300, KeepReuse: 1, KeepAge: 0.01,
			CardKinds: []string{"success", "correction", "rule"}, MemoryLabels: []string{"HIGH_YIELD", "CRITICAL_ERROR", "INEFFICIENT"},
			UpdateInterval: 1, CiteWindow: 50, LeakNGram: 2, LeakOverlap: 0.5, Method: MethodClinevo, SameAt: 0.5,
			Dev: Dev{Algorithm: EvoPromptGA, Cases: 6, Generations: 2, Population: 3, Merges: 2}, ICL: ICL{Episodes: ICLCorrect, Trace: ICLRaw}},
		Memory: Memory{K: 5, Backend: "local", Retrieval: "similarity",
			Utility: DefaultUtility},
		Roles:      Roles{},
		Doctor:     Doctor{Mode: SingleDoctor},
		Durability: DefaultDurability(),
	}
	for _, name := range RoleNames {
		s.Roles[name] = DefaultRole(name)
	}
	return s
}

// DefaultRole is a role's setting before configuration: built-in, with the
// decoding settings a model-backed form of it starts from. A role a
// benchmark adds (bench.Roles) takes the same defaults as a shared role of
// no particular kind.
func DefaultRole(name string) Role {
	r := Role{Backend: Builtin, TopP: 1, MaxTokens: 1024, Timeout: Duration(60 * time.Second), Concurrency: 4,
		APIKeyEnv: "OPENAI_API_KEY", JSONMode: true, Format: "json"}
	switch name {
	case "patient":
		r.Temperature = 0.7
	case "doctor", "evolver":
		r.Temperature = 0.2
	case "judge", "exam":
		r.Cache = true
	}
	return r
}

// Clone returns a deep copy: settings are values, and a copy shares no map or
// slice with the original.
func (s Settings) Clone() Settings {
	out := s
	out.Episode.Prices = cloneMap(s.Episode.Prices)
	out.Episode.Ext = cloneExt(s.Episode.Ext)
	out.Evolver.CardKinds = slices.Clone(s.Evolver.CardKinds)
	out.Evolver.MemoryLabels = slices.Clone(s.Evolver.MemoryLabels)
	out.Roles = cloneMap(s.Roles)
	out.ModelPrices = slices.Clone(s.ModelPrices)
	return out
}

func cloneMap[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// IsZero reports whether s was never set (a spec started without settings).
func (s Settings) IsZero() bool { return s.Benchmark == "" }

// OrDefault returns s, or Default() when s was never set.
func (s Settings) OrDefault() Settings {
	if s.IsZero() {
		return Default()
	}
	return s
}

// Validate names the key of the first invalid value.
func (s Settings) Validate() error {
	if strings.TrimSpace(s.Benchmark) == "" {
		// Which names are benchmarks is the benchmark set's to say (bench.Set.ValidateSettings).
		return fmt.Errorf("profile is required: the name of a benchmark")
	}
	for _, part := range []interface{ validate() error }{s.Episode, s.Scoring, s.Evolver, s.Memory, s.Durability} {
		if err := part.validate(); err != nil {
			return err
		}
	}
	if m := s.Doctor.Mode; m != "" && m != SingleDoctor && m != PanelDoctor {
		return fmt.Errorf("doctor.mode %q, want %s or %s", m, SingleDoctor, PanelDoctor)
	}
	if err := s.Budget.Validate(); err != nil {
		return err
	}
	for i, p := range s.ModelPrices {
		if strings.TrimSpace(p.Model) == "" || CheckFinite("", p.Prompt) != nil || CheckFinite("", p.Completion) != nil {
			return fmt.Errorf("model_prices[%d]: want a model name and non-negative prompt and completion prices (USD per million tokens)", i)
		}
	}
	return s.Roles.Validate()
}

func (e Episode) validate() error {
	if err := firstError(MaxTurnsRange.Check("episode.max_turns", e.MaxTurns), MaxTestsRange.Check("episode.max_tests", e.MaxTests),
		CheckFinite("episode.base_turn_cost", e.BaseTurnCost), CheckFinite("episode.unknown_test_price", e.UnknownTestPrice)); err != nil {
		return err
	}
	switch {
	case !slices.Contains([]string{MDTOff, MDTConsultant, MDTSameModel}, e.MDT):
		return fmt.Errorf("episode.mdt %q, want off, consultant or same_model", e.MDT)
	case e.Mode != Interactive && e.Mode != Static:
		return fmt.Errorf("episode.mode %q, want interactive or static", e.Mode)
	}
	known := Default().Episode.Prices
	for _, k := range sortedKeys(e.Prices) {
		if _, ok := known[k]; !ok {
			return fmt.Errorf("episode.prices.%s: unknown price category, want one of %s", k, strings.Join(sortedKeys(known), ", "))
		}
		if err := CheckFinite("episode.prices."+k, e.Prices[k]); err != nil {
			return err
		}
	}
	return nil
}

func (v Evolver) validate() error {
	switch {
	case v.Method != "" && !slices.Contains(Methods, v.Method):
		return fmt.Errorf("evolver.method %q, want one of %s", v.Method, strings.Join(Methods, ", "))
	case v.SameAt < 0 || v.SameAt > 1 || math.IsNaN(v.SameAt):
		return fmt.Errorf("evolver.same_at must be within [0, 1], got %v", v.SameAt)
	case v.Dev.Algo() != EvoPromptGA && v.Dev.Algo() != EvoPromptDE:
		return fmt.Errorf("evolver.dev.algorithm %q, want %s or %s", v.Dev.Algorithm, EvoPromptGA, EvoPromptDE)
	case v.Method == MethodEvoPrompt && v.Dev.Algo() == EvoPromptDE && v.Dev.Population < 3:
		return fmt.Errorf("evolver.dev.population must be at least 3 for evolver.dev.algorithm de (a base and two donors, EvoPrompt's DE), got %d", v.Dev.Population)
	case v.ICL.Episodes != "" && v.ICL.Episodes != ICLCorrect && v.ICL.Episodes != ICLAll:
		return fmt.Errorf("evolver.icl.episodes %q, want %s or %s", v.ICL.Episodes, ICLCorrect, ICLAll)
	case v.ICL.Trace != "" && v.ICL.Trace != ICLRaw && v.ICL.Trace != ICLCompressed:
		return fmt.Errorf("evolver.icl.trace %q, want %s or %s", v.ICL.Trace, ICLRaw, ICLCompressed)
	case v.Mode != WriteBack && v.Mode != ScoreOnly:
		return fmt.Errorf("evolver.mode %q, want %s or %s", v.Mode, WriteBack, ScoreOnly)
	case CheckFinite("", v.KeepReuse) != nil || CheckFinite("", v.KeepAge) != nil:
		return fmt.Errorf("evolver.keep_reuse and evolver.keep_age must be finite numbers, 0 or more")
	case !(v.LeakOverlap > 0 && v.LeakOverlap <= 1):
		return fmt.Errorf("evolver.leak_overlap must be within (0, 1], got %v", v.LeakOverlap)
	}
	checks := []error{RuleBudgetRange.Check("evolver.rule_budget (B_P)", v.RuleBudget),
		MemoryBudgetRange.Check("evolver.memory_budget (B_M)", v.MemoryBudget),
		IntervalRange.Check("evolver.update_interval", v.UpdateInterval), IntervalRange.Check("evolver.cite_window", v.CiteWindow),
		LeakNGramRange.Check("evolver.leak_ngram", v.LeakNGram), DevMergesRange.Check("evolver.dev.merges", v.Dev.Merges),
		MaTTSRange.Check("evolver.matts.k", v.MaTTS.K)}
	if v.MaTTS.Attempts() > 1 && v.MethodName() != MethodReasoningBank {
		checks = append(checks, fmt.Errorf("evolver.matts.k %d needs evolver.method %s (the method that contrasts the attempts), got %s",
			v.MaTTS.K, MethodReasoningBank, v.MethodName()))
	}
	if v.Optimises() {
		// The development phase runs only for the methods that optimise.
		checks = append(checks, DevCasesRange.Check("evolver.dev.cases", v.Dev.Cases),
			DevRoundsRange.Check("evolver.dev.generations", v.Dev.Generations), DevRoundsRange.Check("evolver.dev.population", v.Dev.Population))
	}
	if err := firstError(checks...); err != nil {
		return err
	}
	for i, k := range v.CardKinds {
		if !slices.Contains(CardKinds, k) {
			return fmt.Errorf("evolver.card_kinds[%d] %q, want one of %s", i, k, strings.Join(CardKinds, ", "))
		}
	}
	for i, l := range v.MemoryLabels {
		if !slices.Contains(Labels, l) {
			return fmt.Errorf("evolver.memory_labels[%d] %q, want one of %s", i, l, strings.Join(Labels, ", "))
		}
	}
	return nil
}

func (m Memory) validate() error {
	switch {
	case m.Backend != "local" && m.Backend != "qdrant":
		return fmt.Errorf("memory.backend %q, want local or qdrant", m.Backend)
	case m.Retrieval != "similarity" && m.Retrieval != "recent":
		return fmt.Errorf("memory.retrieval %q, want similarity or recent", m.Retrieval)
	}
	return firstError(KRange.Check("memory.k", m.K), ContextTokensRange.Check("memory.context_tokens", m.ContextTokens), m.Utility.validate())
}

// validate checks the utility constants; the methods that do not learn a
// utility ignore them, but a bad value is an error wherever it is set.
func (u Utility) validate() error {
	if u == (Utility{}) {
		return nil // settings from before the key: Memory.Utilities
	}
	switch {
	case !(u.Alpha > 0 && u.Alpha <= 1):
		return fmt.Errorf("memory.utility.alpha %v: want a step size within (0, 1] (MemRL's α; default 0.3)", u.Alpha)
	case !(u.Lambda >= 0 && u.Lambda <= 1):
		return fmt.Errorf("memory.utility.lambda %v: want a weight within [0, 1] (MemRL's λ; default 0.5)", u.Lambda)
	case CheckFinite("", u.Initial) != nil:
		return fmt.Errorf("memory.utility.initial %v: want a finite number, 0 or more (default 0.5)", u.Initial)
	case !(u.Tau > 0) || math.IsInf(u.Tau, 0):
		return fmt.Errorf("memory.utility.tau %v: want a temperature above 0 (default 0.1)", u.Tau)
	}
	return UtilityRecallRange.Check("memory.utility.recall", u.Recall)
}

// firstError is the first non-nil error of errs.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (w Scoring) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"w_diagnosis", w.Diagnosis}, {"w_evidence", w.Evidence}, {"w_plan", w.Plan}, {"lambda", w.Lambda}, {"mu", w.Mu},
		{"pass_at", w.PassAt}, {"u_s", w.US}, {"u_t", w.UT}, {"u_e", w.UE}, {"u_r", w.UR}, {"match_at", w.MatchAt}, {"support_at", w.SupportAt}} {
		if err := CheckFinite("scoring."+f.name, f.v); err != nil {
			return err
		}
	}
	if w.Diagnosis+w.Evidence+w.Plan == 0 {
		return errors.New("scoring: w_diagnosis, w_evidence and w_plan must not all be zero")
	}
	return nil
}

// Known names the first role that is not one of known (the roles a run may
// configure: bench.Set.Roles).
func (r Roles) Known(known []string) error {
	for _, name := range sortedKeys(r) {
		if !slices.Contains(known, name) {
			return fmt.Errorf("roles.%s: unknown role, want one of %s", name, strings.Join(known, ", "))
		}
	}
	return nil
}

// Validate names the first bad role setting; which names are roles is the
// benchmark set's to say (Known).
func (r Roles) Validate() error {
	for _, name := range sortedKeys(r) {
		if err := r[name].validate(name); err != nil {
			return err
		}
	}
	return nil
}

func (spec Role) validate(name string) error {
	switch spec.Format {
	case "", "json", "tags", "tools":
	default:
		return fmt.Errorf("roles.%s.format %q, want json, tags or tools", name, spec.Format)
	}
	key := "roles." + name + "."
	if err := firstError(MaxTokensRange.Check(key+"max_tokens", spec.MaxTokens), ConcurrencyRange.Check(key+"concurrency", spec.Concurrency),
		PerMinuteRange.Check(key+"rpm", spec.RPM), PerMinuteRange.Check(key+"tpm", spec.TPM), EmbeddingDimRange.Check(key+"dim", spec.Dim),
		CheckFinite(key+"temperature", float64(spec.Temperature)), CheckFinite(key+"price_prompt", spec.PricePrompt),
		CheckFinite(key+"price_completion", spec.PriceCompletion)); err != nil {
		return err
	}
	switch spec.Backend {
	case "", Builtin:
		// A built-in role ignores model, as it always has, except the
		// doctor's: "textbook" chooses the textbook doctor
		// (actor/textbook), anything else the case-based one.
	case OpenAI:
		if _, err := spec.PresetOf(); err != nil {
			return fmt.Errorf("roles.%s.%w", name, err)
		}
		switch {
		case spec.Endpoint() == "":
			return fmt.Errorf("roles.%s.base_url is required for a model-backed role (provider %s has no usual one)", name, spec.ProviderName())
		case spec.Model == "":
			return fmt.Errorf("roles.%s.model is required", name)
		case spec.Timeout < 0:
			return fmt.Errorf("roles.%s: timeout must not be negative", name)
		case spec.TopP < 0 || spec.TopP > 1 || math.IsNaN(float64(spec.TopP)):
			return fmt.Errorf("roles.%s: top_p must be within [0, 1]", name)
		case name == "embeddings" && spec.Dim < 1:
			return fmt.Errorf("roles.embeddings.dim is required for a model embedder (the bank stores it)")
		}
	default:
		return fmt.Errorf("roles.%s.backend %q, want builtin or openai", name, spec.Backend)
	}
	return nil
}

// Recall is the memory retrieval of a run: memory's, except that the memory
// agent's method (transcripts) always shows the newest cards (EvoClinician
// §4: it fills the context with the latest transcripts), and the methods
// that learn a utility (memrl, memento) rank by it (retrieval memrl or
// memento: runner.Retrieve).
func (s Settings) Recall() Memory {
	m := s.Memory
	switch s.Evolver.Method {
	case MethodTranscripts:
		m.Retrieval = "recent"
	case MethodMemRL, MethodMemento:
		m.Retrieval = s.Evolver.Method // similarity, then utility by the method's rule
	}
	return m
}

// Rules reports whether the run keeps a rule book (B_P > 0).
func (v Evolver) Rules() bool { return v.RuleBudget > 0 }

// MDTAllowed reports whether CALL_MDT reaches a consultant.
func (e Episode) MDTAllowed() bool { return e.MDT != MDTOff }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
