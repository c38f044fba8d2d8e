package clinic

// CardKind is the kind of a memory card.
type CardKind string

// Card kinds.
const (
	CardSuccess    CardKind = "success"    // IF <context> THEN <what worked>
	CardCorrection CardKind = "correction" // IF <context> AVOID <what failed> [USE <correction>]
	CardRule       CardKind = "rule"       // ACTION=<ASK|REQUEST_TEST|CALL_MDT|FINALIZE> <target> WHEN <context>
	CardAdvice     CardKind = "advice"     // compressed context, action, outcome, grade
	CardSummary    CardKind = "summary"    // a compressed past transcript (EvoClinician's memory-agent and RAG baselines)
	CardMemory     CardKind = "memory"     // a consolidated memory item (Mem0)
	CardExperience CardKind = "experience" // a past task, what was done and its feedback (Evo-Memory's ExpRAG and ReMem)
	CardExample    CardKind = "example"    // a past input and the doctor's answer, as an in-context example (StreamBench's Self-StreamICL)
	CardStrategy   CardKind = "strategy"   // a memory item (title, description, content) from a self-judged episode (ReasoningBank)
)

// Card is one memory card. The hint fields are what the doctor may see; the
// bookkeeping fields are provenance and never reach the doctor.
type Card struct {
	CardHint
	SearchText     string `json:"search_text"`
	Bank           string `json:"bank"`
	Run            string `json:"run"`
	Pass           int    `json:"pass"`
	Stage          int    `json:"stage"`
	SourceCase     string `json:"source_case"`
	CreatedEpisode int    `json:"created_episode"`
	EvictedEpisode int    `json:"evicted_episode,omitempty"` // 0: live
	Retrievals     int    `json:"retrievals"`
	LastRetrieved  int    `json:"last_retrieved,omitempty"` // episode number of the last counted retrieval
	// Utility is the card's learned utility, one entry per episode that
	// credited it, oldest first (the methods memrl and memento; empty for
	// every other method and for banks from before utilities: such a card
	// has the initial utility). A read as of episode N holds the entries up
	// to N, so the utility restores with the bank as of any episode.
	Utility []Utility `json:"utility,omitempty"`
}

// Utility is one update of a card's utility, after the episode that
// retrieved it was scored: Q the utility after the update, Reward the
// episode's reward, and State the presentation the episode retrieved the
// card for (Memento's state s, which its kernel estimate compares with the
// next one).
type Utility struct {
	Episode int     `json:"episode"`
	Q       float64 `json:"q"`
	Reward  float64 `json:"reward"`
	State   string  `json:"state,omitempty"`
}

// Rule is one prompt rule of the doctor's rule book.
type Rule struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	Citations int    `json:"citations"` // graded actions that supported it
	Created   int    `json:"created"`   // episode number
	// CitedAt are the episode numbers of its recent citations: a full rule
	// book retires the rule least cited in the last W episodes (EvoClinician
	// §3, prompt evolution; settings evolver.cite_window).
	CitedAt []int `json:"cited_at,omitempty"`
	// Helpful and Harmful count the episodes in which the rule helped or
	// hurt: ACE's bullet counters (a playbook's bullets are rules).
	Helpful int `json:"helpful,omitempty"`
	Harmful int `json:"harmful,omitempty"`
}
