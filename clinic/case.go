// Package clinic holds the domain types of clinevo: cases with their three role
// views, the doctor's actions and view, episode traces, scores, memory cards and
// prompt rules. It imports only the standard library so every other package can
// depend on it.
package clinic

// CaseSchemaVersion is the version of the native case format written and read by
// package corpus. Readers reject any other version.
const CaseSchemaVersion = 1

// Case is one simulated outpatient encounter. Each role sees only its own view:
// the patient simulator sees Patient, the exam service sees Exam, the manager and
// judge see Manager. The doctor sees none of them directly; it receives a
// DoctorView built by the episode environment.
type Case struct {
	SchemaVersion int         `json:"schema_version"`
	ID            string      `json:"id"`
	Condition     string      `json:"condition,omitempty"` // condition key, for grouping in reports
	System        string      `json:"system,omitempty"`    // body system, for grouping in reports
	Meta          CaseMeta    `json:"meta,omitempty"`
	Patient       PatientView `json:"patient_view"`
	Exam          ExamView    `json:"exam_view"`
	Manager       ManagerView `json:"manager_view"`
	Provenance    Provenance  `json:"provenance"`
}

// CaseMeta places a case in a generated corpus.
type CaseMeta struct {
	Split   string `json:"split,omitempty"`   // stream | heldout | cross | update
	Stage   int    `json:"stage,omitempty"`   // 1-based stage in a stream split
	Shifted bool   `json:"shifted,omitempty"` // an atypical presentation of an update stage
}

// PatientView is everything the patient simulator knows.
type PatientView struct {
	Demographics     Demographics `json:"demographics"`
	OpeningComplaint string       `json:"opening_complaint"`
	Facts            []Fact       `json:"facts"`
	Persona          Persona      `json:"persona"`
}

// Demographics is what the doctor sees of the patient at the door.
type Demographics struct {
	Age  int    `json:"age,omitempty"`
	Sex  string `json:"sex,omitempty"`  // female | male | ""
	Text string `json:"text,omitempty"` // free text when age and sex are not structured
}

// Fact is one piece of history the patient can reveal when asked.
type Fact struct {
	ID     string   `json:"id"`
	Text   string   `json:"text"`
	Topics []string `json:"topics"`
	// Absent marks an explicitly absent finding, a pertinent negative the
	// case author states: Text is how the patient denies it when asked.
	Absent bool `json:"absent,omitempty"`
}

// History topics a fact can carry. Must-ask topics in the manager view use the same names.
const (
	TopicOnset    = "onset"
	TopicDuration = "duration"
	// TopicCourse is how the problem has changed since it began: progression,
	// recurrence, response to what was tried.
	TopicCourse      = "course"
	TopicCharacter   = "character"
	TopicLocation    = "location"
	TopicSeverity    = "severity"
	TopicTriggers    = "triggers"
	TopicAssociated  = "associated"
	TopicPastHistory = "past_history"
	TopicMedications = "medications"
	TopicAllergies   = "allergies"
	TopicFamily      = "family"
	TopicSocial      = "social"
	// TopicExposures are contacts, travel, animals, injuries and substances
	// the patient met before the illness.
	TopicExposures = "exposures"
	TopicSystems   = "systems_review"
)

// Topics lists every history topic in the order a structured history visits them.
var Topics = []string{
	TopicOnset, TopicDuration, TopicCourse, TopicCharacter, TopicLocation, TopicSeverity, TopicTriggers,
	TopicAssociated, TopicSystems, TopicPastHistory, TopicMedications, TopicAllergies, TopicFamily, TopicSocial, TopicExposures,
}

// Persona shapes how the simulated patient answers, on four dimensions:
// personality (the six kinds; "anxious" is overanxious and "minimising"
// pleasing, minimising symptoms), language proficiency, anamnestic fidelity
// (Recall) and cognitive disorientation. Older corpora spell proficiency fluent | limited and
// disorientation as Clarity; Proficiency and Disoriented read either.
type Persona struct {
	Personality string `json:"personality"` // neutral | anxious | verbose | impatient | distrustful | minimising
	Language    string `json:"language"`    // basic | intermediate | advanced (fluent | limited)
	Recall      string `json:"recall"`      // anamnestic fidelity: high | low (medium between them)
	Clarity     string `json:"clarity"`     // clear | confused, where Disorientation is empty
	// Disorientation is the cognitive disorientation level.
	Disorientation string `json:"disorientation,omitempty"` // normal | moderate | high
}

// Allowed persona values.
var (
	Personalities   = []string{"neutral", "anxious", "verbose", "impatient", "distrustful", "minimising"}
	Languages       = []string{"basic", "intermediate", "advanced", "fluent", "limited"}
	Recalls         = []string{"high", "medium", "low"}
	Clarities       = []string{"clear", "confused"}
	Disorientations = []string{"normal", "moderate", "high"}
)

// ExamView is everything the exam service knows.
type ExamView struct {
	Findings []Finding   `json:"findings"` // physical examination, by system
	Tests    []TestValue `json:"tests"`    // results keyed by catalog name
	Catalog  []string    `json:"catalog"`  // names the doctor may request in this case
	// Ext are the parts of the exam view a benchmark adds, written inline.
	Ext Ext `json:"-"`
}

// Finding is a physical examination finding of one body system.
type Finding struct {
	System   string `json:"system"`
	Text     string `json:"text"`
	Abnormal bool   `json:"abnormal,omitempty"`
}

// TestValue is the stored result of one catalog test for this case.
type TestValue struct {
	Name     string   `json:"name"` // normalised catalog name
	Aliases  []string `json:"aliases,omitempty"`
	Result   string   `json:"result"`
	Abnormal bool     `json:"abnormal,omitempty"`
}

// ManagerView is the answer key: seen only by the manager, judge and, where
// configured, the process grader.
type ManagerView struct {
	Diagnosis        Diagnosis `json:"diagnosis"`
	Evidence         []string  `json:"evidence_key_points"`
	Management       []string  `json:"management_key_points"`
	UnsafeManagement []string  `json:"unsafe_management,omitempty"`
	Referral         *Referral `json:"referral"` // nil: the source says nothing about referral
	MustAsk          []string  `json:"must_ask_topics,omitempty"`
	RequiredActions  []string  `json:"required_actions,omitempty"` // e.g. "REQUEST_TEST:ecg"
	// Distractors are the wrong answers of a multiple-choice source (a
	// published case's other options): a differential a judge may weigh a
	// submission against. Like all of the answer key, never in a view the
	// doctor or the patient sees.
	Distractors []string `json:"distractors,omitempty"`
	// Ext are the parts of the answer key a benchmark adds, written inline.
	Ext Ext `json:"-"`
}

// Diagnosis is the reference diagnosis.
type Diagnosis struct {
	Name       string   `json:"display_name"`
	Acceptable []string `json:"acceptable_names,omitempty"`
	ICD10      string   `json:"icd10,omitempty"`
	Dangerous  []string `json:"dangerous_alternatives,omitempty"`
}

// Referral says whether and where the patient must be referred.
type Referral struct {
	Needed      bool   `json:"needed"`
	Destination string `json:"destination,omitempty"`
	Urgency     string `json:"urgency,omitempty"` // routine | urgent | emergency
	// Alternatives are further destinations that count as correct.
	Alternatives []string `json:"alternative_destinations,omitempty"`
	// RedFlags are the features of the case that make referral necessary.
	RedFlags []string `json:"red_flags,omitempty"`
}

// Provenance says where a case came from.
type Provenance struct {
	Source       string `json:"source"`
	SourceCaseID string `json:"source_case_id,omitempty"`
	License      string `json:"license,omitempty"`
	// ImageURL marks a case imported as text only from a source that shows an
	// image (AgentClinic's NEJM cases): the image's address. The case holds
	// none of what the image shows beyond what its text says.
	ImageURL string `json:"image_url,omitempty"`
	// Redactions are what an importer withheld from the patient and exam
	// views because it named the diagnosis (its leak guard), one line each.
	Redactions []string `json:"redactions,omitempty"`
}
