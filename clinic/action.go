package clinic

// ActionKind names one of the doctor's actions.
type ActionKind string

// The doctor's actions. Anything else is recorded as an invalid turn.
const (
	Ask         ActionKind = "ASK"
	RequestTest ActionKind = "REQUEST_TEST"
	CallMDT     ActionKind = "CALL_MDT"
	Finalize    ActionKind = "FINALIZE"
)

// Valid reports whether k is one of the four actions.
func (k ActionKind) Valid() bool {
	switch k {
	case Ask, RequestTest, CallMDT, Finalize:
		return true
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
}

// FinalOutput is what a finalised episode hands to the manager.
type FinalOutput struct {
	Diagnosis []string `json:"diagnosis"`
	Evidence  []string `json:"evidence"`
	Plan      []string `json:"plan"`
	Followup  []string `json:"followup"`
	Forced    bool     `json:"forced,omitempty"` // built by the environment at the turn limit
}
