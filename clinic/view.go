package clinic

// DoctorView is the doctor's whole input for one turn. It is built by the episode
// environment from what has been revealed so far and deliberately has no field
// that could hold a hidden fact, an unrevealed result, the answer key or a
// case's provenance.
type DoctorView struct {
	Demographics     Demographics `json:"demographics"`
	OpeningComplaint string       `json:"opening_complaint"`
	Exchanges        []Exchange   `json:"exchanges"`     // questions asked and what the patient said
	Results          []Result     `json:"results"`       // tests returned (and refusals)
	ConsultNotes     []string     `json:"consult_notes"` // consultant replies
	Cards            []CardHint   `json:"cards"`         // retrieved memory cards
	Rules            []string     `json:"rules"`         // prompt rules in force
	Catalog          []string     `json:"catalog"`       // tests that may be requested; empty where the profile shows no list
	MDTAllowed       bool         `json:"mdt_allowed"`
	Actions          []string     `json:"actions"`                // the actions the doctor may take this turn
	FinalFields      []string     `json:"final_fields,omitempty"` // what the closing action must fill
	// Phase is the benchmark's workflow state this turn, where it has
	// states; empty otherwise.
	Phase     string `json:"phase,omitempty"`
	Turn      int    `json:"turn"` // 0-based index of the turn being decided
	MaxTurns  int    `json:"max_turns"`
	TestsUsed int    `json:"tests_used"`
	MaxTests  int    `json:"max_tests"`
	// MayRefine says the doctor may ask to refine its memory before it acts
	// (DoctorOutput.Refine): ReMem's third operation beside thinking and
	// acting (Evo-Memory, arXiv 2511.20857), offered in ReMem runs only.
	MayRefine bool `json:"may_refine,omitempty"`
	// Ext is the benchmark's own part of the view (its workflow state, its
	// tools), of a type the benchmark owns; nil where it has none.
	Ext ViewExt `json:"ext,omitempty"`
}

// ViewExt is a benchmark's own part of the doctor's view. The type holds only
// what the doctor may see: the conformance suite (bench/benchtest) walks
// every field of it by reflection, as it walks DoctorView's.
type ViewExt interface {
	DoctorViewExt()
}

// Exchange is one question and the patient's reply.
type Exchange struct {
	Question string `json:"question"`
	Topic    string `json:"topic,omitempty"`
	Answer   string `json:"answer"`
	// Answered is false when the patient said nothing of substance (did not
	// know, did not understand, or held back).
	Answered bool `json:"answered"`
}

// Result is one test request and what came back.
type Result struct {
	Test   string `json:"test"`
	Status Status `json:"status"`
	Text   string `json:"text,omitempty"`
}

// CardHint is a memory card as the doctor sees it: no provenance.
type CardHint struct {
	ID         string   `json:"id"`
	Kind       CardKind `json:"kind"`
	Text       string   `json:"text"`
	Similarity float64  `json:"similarity"`
	// Structured advice the built-in doctor reads; model doctors read Text.
	Diagnosis string   `json:"diagnosis,omitempty"`
	Avoid     string   `json:"avoid,omitempty"`
	Ask       []string `json:"ask,omitempty"`
	Tests     []string `json:"tests,omitempty"`
	Evidence  []string `json:"evidence,omitempty"`
	Plan      []string `json:"plan,omitempty"`
	Followup  []string `json:"followup,omitempty"`
	Calls     []string `json:"calls,omitempty"`  // tool calls, spelled tool(name=value, ...)
	Action    string   `json:"action,omitempty"` // for rule and advice cards: ASK:<topic>, REQUEST_TEST:<test>, ...
	Context   string   `json:"context,omitempty"`
	// Grade is the process label of the action a card came from: an advice
	// entry is a suggestion (HIGH_YIELD) or a warning (INEFFICIENT,
	// CRITICAL_ERROR), as EvoClinician's actor reads them.
	Grade string `json:"grade,omitempty"`
}
