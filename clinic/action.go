package clinic

// ActionKind names one of the doctor's actions.
type ActionKind string

// The shared doctor's actions; each benchmark allows a subset
// (DoctorView.Actions), may add its own (bench.Benchmark.Actions), and
// records anything else as an invalid turn.
const (
	// MedEvoEval's four (§3.2); Med-Inquire's three are Ask, RequestTest
	// (free text) and Finalize (diagnosis only).
	Ask         ActionKind = "ASK"
	RequestTest ActionKind = "REQUEST_TEST"
	CallMDT     ActionKind = "CALL_MDT"
	Finalize    ActionKind = "FINALIZE"
)

// ActionKinds lists the shared actions; a benchmark that owns its
// actions declares them in its own package (bench.Benchmark.Actions).
var ActionKinds = []ActionKind{Ask, RequestTest, CallMDT, Finalize}

// Known reports whether k is a shared action.
func (k ActionKind) Known() bool {
	for _, a := range ActionKinds {
		if a == k {
			return true
		}
	}
	return false
}

// DoctorOutput is the structured output of one doctor turn.
type DoctorOutput struct {
	Action           ActionKind `json:"action"`
	Utterance        string     `json:"utterance,omitempty"`
	Question         string     `json:"question,omitempty"`
	TestName         string     `json:"test_name,omitempty"`
	Rationale        []string   `json:"rationale,omitempty"`
	WorkingDiagnoses []string   `json:"working_diagnoses,omitempty"`
	NeedsMDT         bool       `json:"needs_mdt,omitempty"`
	Diagnosis        []string   `json:"diagnosis,omitempty"`
	Evidence         []string   `json:"evidence,omitempty"`
	Plan             []string   `json:"plan,omitempty"`
	Followup         []string   `json:"followup,omitempty"`
	// Topic is the history topic a built-in doctor meant to cover; model doctors leave it empty.
	Topic string `json:"topic,omitempty"`
	// CardIDs are the memory cards the doctor cites for this action.
	CardIDs []string `json:"card_ids,omitempty"`
	// Refine is the doctor choosing to refine its memory before it acts
	// (ReMem, where the view offers it: DoctorView.MayRefine): the refine
	// step runs and the doctor decides again with the refined memory, in the
	// same turn.
	Refine bool `json:"refine,omitempty"`
	// Fields of the other profiles' actions.
	// Ext are the fields of a benchmark's own actions, written inline.
	Ext Ext `json:"-"`
}

// FinalOutput is what a finalised episode hands to the manager.
type FinalOutput struct {
	Diagnosis []string `json:"diagnosis"`
	Evidence  []string `json:"evidence"`
	Plan      []string `json:"plan"`
	Followup  []string `json:"followup"`
	Forced    bool     `json:"forced,omitempty"` // built by the environment at the turn limit
	// Ext are the fields of a benchmark's own closing actions, written inline.
	Ext Ext `json:"-"`
}
