package clinic

// TraceSchemaVersion is the version of the episode trace JSONL format.
const TraceSchemaVersion = 1

// Status is what the environment made of one action.
type Status string

// Statuses of an action.
const (
	StatusReturned    Status = "returned"
	StatusUnavailable Status = "unavailable"
	StatusInvalid     Status = "invalid"
	StatusDuplicate   Status = "duplicate"
	StatusOverBudget  Status = "over_budget"
	StatusUnparseable Status = "unparseable"
	StatusFinalized   Status = "finalized"
	StatusMasked      Status = "masked" // an action the benchmark's workflow does not allow in its state now
)

// Termination says how an episode ended.
type Termination string

// Termination reasons.
const (
	EndFinalized Termination = "finalized"
	EndTurnLimit Termination = "turn_limit"
	EndError     Termination = "error"
)

// Event is one turn of an episode.
type Event struct {
	Turn             int        `json:"turn"`
	Action           ActionKind `json:"action"`
	Question         string     `json:"question,omitempty"`
	Topic            string     `json:"topic,omitempty"`
	Test             string     `json:"test,omitempty"` // catalog name after normalisation, or the raw request
	Status           Status     `json:"status"`
	Reply            string     `json:"reply,omitempty"` // patient answer, test result or consultant note
	RevealedFacts    []string   `json:"revealed_facts,omitempty"`
	HeldFacts        []string   `json:"held_facts,omitempty"`        // matched but held back by a low-recall patient
	Unanswered       string     `json:"unanswered,omitempty"`        // none | not_in_patient_view | unclear_question
	ConsultantStatus string     `json:"consultant_status,omitempty"` // answered | disabled
	RetrievedCards   []string   `json:"retrieved_cards,omitempty"`
	// PrunedCards are the memory cards a learning method's refine step
	// removed before this turn's retrieval (Evo-Memory's ReMem): the turn's
	// doctor did not see them, and the episode's update evicts them.
	PrunedCards      []string `json:"pruned_cards,omitempty"`
	Cost             float64  `json:"cost"`
	Rationale        []string `json:"rationale,omitempty"`
	WorkingDiagnoses []string `json:"working_diagnoses,omitempty"`
	LLMError         bool     `json:"llm_error,omitempty"`
	Free             bool     `json:"free,omitempty"`   // a physical examination: no cost, no test budget
	Cached           bool     `json:"cached,omitempty"` // a repeated question answered from the episode cache
	// Generated marks an answer beyond the record (a profile that lets the
	// patient invent consistent details); Topics are the question's topics it
	// is cached under for the rest of the episode.
	Generated bool     `json:"generated,omitempty"`
	Topics    []string `json:"topics,omitempty"`
	// Fields of the other profiles' actions.
	Final       *FinalOutput `json:"final,omitempty"`        // the doctor's FINALIZE
	ForcedFinal *FinalOutput `json:"forced_final,omitempty"` // built at the turn limit
	// Ext are the fields a benchmark adds to its events, written inline.
	Ext Ext `json:"-"`
}

// Memory write-back outcomes of an episode.
const (
	MemoryWritten  = "written"  // the evolver wrote cards from it
	MemoryNone     = "none"     // learning ran and wrote no card
	MemoryDisabled = "disabled" // no memory in this run
	MemoryFrozen   = "frozen"   // an evaluation: memory is read, never written
)

// Trace is the full record of one episode, written as one JSONL line.
type Trace struct {
	SchemaVersion int         `json:"schema_version"`
	EpisodeID     string      `json:"episode_id"`
	RunID         string      `json:"run_id,omitempty"`
	CaseID        string      `json:"case_id"`
	Condition     string      `json:"condition,omitempty"`
	Events        []Event     `json:"events"`
	Termination   Termination `json:"termination"`
	Final         FinalOutput `json:"final"`
	Scores        *Scores     `json:"scores,omitempty"`
	MemoryWrite   string      `json:"memory_write_back,omitempty"` // written | none | disabled | frozen
	LLMErrorTurns []int       `json:"llm_error_turns"`
}
