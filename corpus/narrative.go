package corpus

import (
	"regexp"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
)

// Reading case reports written as prose (DiagnosisArena's case information,
// AgentClinic's NEJM patient information): each history sentence is tagged
// with the topics a doctor's question would ask it for, so that a question on
// one topic draws that topic's sentences and not the rest of the narrative.
// The cue lists are clinevo's (no source tags its sentences); what they give
// is measured against a hand-labelled set (episode's reveal test,
// docs/corpora.md).

// cueSet is a topic's cue phrases, matched as substrings of the lowercased
// sentence padded with a space at each end (so " fall " is a word, "allerg"
// a stem).
type cueSet []string

func (cs cueSet) in(padded string) bool {
	for _, c := range cs {
		if strings.Contains(padded, c) {
			return true
		}
	}
	return false
}

var (
	familyWords  = cueSet{"mother", "father", "sister", "brother", "sibling", " son ", " son's", "daughter", " aunt", "uncle", "cousin", "grandm", "grandf", "grandparent", "parents", "relative", " twin", "maternal", "paternal"}
	familyStrong = cueSet{"family history", "family member", "familial", "consanguin", "hereditary", "inherited", "in the family", "family had", "family has"}
	familyVerbs  = cueSet{" had ", " has ", " died", "history", "similar", "affected", "diagnosed", "suffer", "carrier", " disease", "condition", " same "}
	// investigation is a sentence that reports a test and its result: a
	// result the patient was told of, past history, never a symptom.
	testNouns   = cueSet{"biops", "histolog", "histopath", "patholog", " ct ", "computed tomograph", " mri", "magnetic resonance", "ultrasound", "ultrasonograph", "sonograph", "radiograph", "x-ray", "imaging", "echocardiogra", "laborator", "blood test", "serum", "culture", " pcr", "antibod", "serolog", " count ", " count was", " level", "electrocardiogra", " ecg", "endoscop", "colonoscop", " scan", "assay", " titer", " titre", "smear", "cytolog", "immunohisto", "genetic test", "sequencing"}
	resultVerbs = cueSet{"showed", "revealed", "demonstrated", " found", "positive", "negative", "elevated", "detected", "confirmed", " normal", "unremarkable", "consistent with", "suggestive of", "indicated", " was ", " were ", "discovered", "identified"}
	allergyCues = cueSet{"allergy", "allergies", "allergic to", "allergic reaction", "hypersensitivity to", "anaphyla"}
	medCues     = cueSet{"medication", "taking ", " was on ", " were on ", "treated with", "treatment with", "treatment", "received", "prescribed", " mg", "therapy", " dose", "injection", "infusion", " drug", "tablet", "inhaler", "chemotherapy", "started on", "initiated", "antibiotic", "steroid", "vaccin", "ointment", "cream", "supplement"}
	// drugSuffixes mark a word as a medicine's name (clinevo's list of
	// common stems: antibodies, kinase inhibitors, ACE inhibitors, ...).
	drugSuffixes = []string{"mab", "nib", "pril", "sartan", "olol", "statin", "mycin", "cillin", "azole", "prazole", "solone", "sone", "dipine", "formin", "parin", "xaban", "vir", "cycline", "floxacin", "tidine", "pam", "lam", "zepam", "oxetine", "afil", "platin", "taxel", "rubicin", "limus"}
	pastCues     = cueSet{"histor", "medical history", "past medical", "previously", "previous", "underwent", "had undergone", "diagnosed with", " diagnosis", " known ", "since childhood", "in childhood", " at age ", "surgery", "surgical", "transplant", "operation", "resection", "hospitali", "admitted to", "screening", "ectomy", "ostomy", "otomy", "plasty", " stent", "comorbid", "background of", "was born", "pregnan", "gestation", "delivered"}
	socialCues   = cueSet{"smok", "tobacco", "cigarette", "alcohol", "drinker", "drinks alcohol", "drinks a day", "drinks per", "drinking", "illicit", "drug use", "substance use", "occupation", "works as", "worked as", "worker", "farmer", "employed", "retired", " lives ", " living ", "married", "sexual", "sexually", "partner", " diet", "vegetarian", "vegan", "exercise", "athlete", "player", "student", "emigrated", "immigra", "refugee", "homeless", "resident of", " rural ", "nursing home"}
	exposureCues = cueSet{"exposure", "exposed", "contact with", "travel", "returned from", " trip", "visited", " bite", "bitten", " stung", " sting ", " tick", "mosquito", "insect", "animal", " cat ", " cats", " dog", " bird", "poultry", "livestock", "cattle", " farm", "rodent", "asbestos", "chemical", "solvent", "pesticide", "fumes", " dust", " swim", "hiking", "camping", "trauma", "injury", "injured", " fell ", " fall ", "accident", "sick contact", "outbreak", "undercooked", "ingest", "sprayed", "inhaled"}
	onsetCues    = cueSet{"began", "begun", "started", "onset", "first noticed", "first appeared", "appeared", "developed", " since ", " ago", "sudden", "abrupt", "initially", "at first", "from age", "at the age", "at age", "gradual"}
	durationCues = cueSet{"for the past", "for the last", "for over", "for about", "for several", "for a few", "lasting", "lasted", "duration", "-day", "-week", "-month", "-year", " days", " weeks", " months", " years", " hours", "persistent", "chronic", "long-standing", "intermittent", "episodes", "daily"}
	courseCues   = cueSet{"progress", "worsen", " worse", "improv", "resolv", "recur", "relaps", "spread", "enlarg", " grew", "growing", "increased in", "decreased in", "gradually", "subsequently", " later", "over the following", "over the next", "despite", "unresponsive", "refractory", "failed", "no response", "responded", "persist", "remission", "afterward", "thereafter", "evolved", "continued", "became", "recently"}
	charCues     = cueSet{"sharp", " dull", "burning", "throbbing", "aching", "cramp", "pressure", "stabbing", "colicky", "itch", "prurit", "painless", "painful", "described as", "like a ", "pulsat", "shooting", "tingling", "numb", "asymptomatic"}
	locCues      = cueSet{"located", "radiat", " left", " right", "bilateral", " upper", " lower", " head", " face", "facial", " neck", " chest", "abdom", " back", " arm", " leg", " hand", " foot", " feet", "scalp", " trunk", "extremit", " eye", " ear", " groin", " thigh", " knee", " shoulder", " finger", " toe", " lip", " tongue", " nose", "forehead", " cheek", "axilla", " palm", " sole", "genital", "scrot", "penis", "vulva"}
	placeCues    = cueSet{"located", "radiat", "spread", "extend", "involv", "affected", "dispersed", "distribut"}
	severityCues = cueSet{"severe", "worst", " mild", "moderate", "intense", "excruciating", "significant", "unable to", "debilitating", " marked", "profound", "massive"}
	triggerCues  = cueSet{"trigger", "worsened in", "worse in", "remit", "attributed", "after trauma", "after immersion", "after exposure", "aggravating", "alleviating", "triggered", "worse with", "worse after", "worsened by", "exacerbat", "aggravat", "relieved", "alleviat", "improved with", "better with", "on exertion", "-induced", "after meals", "after eating", "when ", "upon ", "precipitat", "provoked", "induced by"}
	symptomCues  = cueSet{"fever", "pyrexia", "febrile", "chill", "rigor", "sweat", "weight loss", "lost weight", "fatigue", "malaise", "weakness", " pain", " ache", "headache", "nausea", "vomit", "diarrh", "constipat", "cough", "dyspn", "breath", "wheez", "haemopty", "hemopty", "palpitat", "syncope", "dizz", "vertigo", "rash", "lesion", "itch", "prurit", "bleed", "bruis", "swell", "edema", "oedema", "numb", "tingl", "seizure", "confus", "vision", "visual", "hearing", "jaundice", "urin", "dysuria", "anorexia", "appetite", "insomnia", "arthralg", "myalg", "ulcer", "nodule", "papule", "plaque", "lump", " mass", "discharge", "symptom", "cyanosis", "dysphagia", "hoarse", "eruption", "blister", "sore", "limited", "stiff", "hardening"}
	negationCues = cueSet{" denied", " denies", " no ", "without", "negative for", "absence of", "not report", " never ", " nor "}
)

// NarrativeTopics tags one history sentence of a case report. A family
// history sentence is "family" alone, an allergy "allergies" alone (the drug
// it names is not a medicine taken) and a reported investigation
// "past_history" alone (a result the patient was told, never a symptom);
// otherwise the sentence carries each topic whose cues it holds, and a
// denied symptom is also "systems_review". A sentence with no cue is
// "associated".
func NarrativeTopics(sentence string) []string {
	t := " " + strings.ToLower(sentence) + " "
	if familyStrong.in(t) || (familyWords.in(t) && familyVerbs.in(t)) {
		if strings.Contains(strings.ReplaceAll(t, "family history", ""), "history of") {
			return []string{clinic.TopicFamily, clinic.TopicPastHistory} // "no family history of X and no history of Y"
		}
		return []string{clinic.TopicFamily}
	}
	if allergyCues.in(t) {
		return []string{clinic.TopicAllergies}
	}
	if testNouns.in(t) && resultVerbs.in(t) {
		return []string{clinic.TopicPastHistory}
	}
	var out []string
	add := func(topic string, ok bool) {
		if ok {
			out = append(out, topic)
		}
	}
	add(clinic.TopicOnset, onsetCues.in(t))
	add(clinic.TopicDuration, durationCues.in(t))
	add(clinic.TopicCourse, courseCues.in(t))
	add(clinic.TopicCharacter, charCues.in(t))
	// Where the complaint is: a body part named with a symptom, in a
	// sentence that does not deny it ("denied chest pain" says no place).
	add(clinic.TopicLocation, locCues.in(t) && (symptomCues.in(t) || placeCues.in(t)) && !negationCues.in(t))
	add(clinic.TopicSeverity, severityCues.in(t))
	add(clinic.TopicTriggers, triggerCues.in(t))
	symptom := symptomCues.in(t)
	add(clinic.TopicAssociated, symptom)
	add(clinic.TopicSystems, symptom && negationCues.in(t))
	add(clinic.TopicPastHistory, pastCues.in(durationHistoryOf.ReplaceAllString(t, " ")))
	add(clinic.TopicMedications, medCues.in(t) || namesDrug(t))
	add(clinic.TopicSocial, socialCues.in(t))
	add(clinic.TopicExposures, exposureCues.in(t))
	if len(out) == 0 {
		return []string{clinic.TopicAssociated}
	}
	if historyLead(t) {
		// "Medical history included ...": a list of past illnesses, not the
		// complaint's time course or symptoms, whatever words it holds.
		out = slices.DeleteFunc(out, func(topic string) bool { return !historyTopics[topic] })
		if len(out) == 0 {
			out = []string{clinic.TopicPastHistory}
		}
	}
	return out
}

// historyTopics are the topics of the patient's background, not of the complaint.
var historyTopics = map[string]bool{clinic.TopicPastHistory: true, clinic.TopicMedications: true, clinic.TopicAllergies: true,
	clinic.TopicSocial: true, clinic.TopicExposures: true}

// historyLeads open a sentence that lists the patient's background.
var historyLeads = []string{"medical and", "medical history", "past medical", "past history", "history", "surgical history", "medication",
	"current medication", "social history", "comorbidit", "previous medical", "prior medical", "home medication", "drug history"}

// historyLead reports whether the padded, lowercased sentence opens with a
// background heading ("Medical history included", "Her medications were").
func historyLead(padded string) bool {
	lead := strings.TrimSpace(padded)
	for _, p := range []string{"his ", "her ", "their ", "the patient's ", "the patient’s ", "patient's "} {
		lead = strings.TrimPrefix(lead, p)
	}
	for _, h := range historyLeads {
		if strings.HasPrefix(lead, h) {
			return true
		}
	}
	return false
}

// durationHistoryOf is "a 2-year history of ...": how long the complaint has
// lasted, not a past illness.
var durationHistoryOf = regexp.MustCompile(`(\d+|one|two|three|four|five|six|several|few|long|lifelong|long-standing)[- ](hour|day|week|month|year|decade)?s?[- ]?history of`)

// namesDrug reports whether a word of the padded text ends like a medicine's name.
func namesDrug(padded string) bool {
	for _, w := range strings.FieldsFunc(padded, func(r rune) bool { return !('a' <= r && r <= 'z') }) {
		if len(w) < 6 {
			continue
		}
		for _, s := range drugSuffixes {
			if strings.HasSuffix(w, s) {
				return true
			}
		}
	}
	return false
}

// systemCues are the words that place an examination sentence in a body
// system (catalog.ExamSystems); clinevo's lists.
var systemCues = []struct {
	system string
	cues   cueSet
}{
	{"vitals", cueSet{"temperature", "blood pressure", "heart rate", "pulse rate", "respiratory rate", "oxygen saturation", "spo2", " bpm", "mmhg", "mm hg", "°c", "°f", "vital", " bmi", "weight ", "height "}},
	{"eye", cueSet{" eye", "ocular", "visual acuity", "pupil", "fundus", "fundi", "retina", "cornea", "conjunctiv", "sclera", " iris", " lens", "intraocular", "slit", "ophthalm", " optic", "macula", "eyelid", "vitreous", "orbit", "periorbital"}},
	{"ent", cueSet{" ear", "tympan", "nasal", " nose", "throat", "pharyn", "laryn", "tonsil", " oral", "mouth", "tongue", "gingiv", "palate", "otoscop", "epiglott", "vocal", "mucosa", " lips"}},
	{"skin", cueSet{"skin", " rash", "lesion", "papule", "plaque", "macule", "nodule", "patch", "erythem", "dermoscop", "scal", "ulcer", "pigment", "blister", "vesic", "pustul", "alopecia", " nail", " hair", "cutaneous", "erupt", "crust", "eschar", "purpura", "petechia"}},
	{"respiratory", cueSet{" lung", "breath sounds", "crackle", "wheez", "rales", "respiratory", "auscultation of the chest", "pulmonary", "percussion", "rhonchi", "stridor"}},
	{"cardiovascular", cueSet{"heart sound", "heart", "murmur", "cardiac", "jugular", "peripheral pulse", "capillary refill", "gallop", " rub", "tachycard", "bradycard", "arrhythm", "rhythm"}},
	{"abdominal", cueSet{"abdom", " liver", "spleen", "hepat", "splen", "bowel sounds", "rectal", "epigastr", "umbilic", "ascites", "hernia", "murphy"}},
	{"neurological", cueSet{"neurolog", "cranial nerve", "reflex", "strength", "sensation", "sensory", " gait", "ataxi", "tremor", "paresis", "plegia", "cognit", "conscious", "oriented", "babinski", "nystagmus", "dysarthria", "coordination", "meningeal", " power", "glasgow", "aphasi", "proprioception"}},
	{"musculoskeletal", cueSet{" joint", " muscle", "range of motion", " spine", "spinal", " knee", " hip", "shoulder", "extremit", " limb", " bone", "deformit", "arthr", "synov", " tendon", "swollen", " swelling"}},
	{"genitourinary", cueSet{"genital", "penis", "penile", "scrot", "testic", "vulva", "vagin", "cervix", "pelvic", "breast", "uterus", "prostate", "labia", "perineal"}},
	{"mental state", cueSet{" mood", " affect", "psychiatric", "mental status", "hallucinat", "delusion", "anxious", "agitat"}},
}

// FindingSystem places one examination sentence in the body system whose
// cues it holds most (the first such system on a tie); "general" when it
// holds none.
func FindingSystem(sentence string) string {
	t := " " + strings.ToLower(sentence) + " "
	best, bestN := "general", 0
	for _, sc := range systemCues {
		n := 0
		for _, c := range sc.cues {
			if strings.Contains(t, c) {
				n++
			}
		}
		if n > bestN {
			best, bestN = sc.system, n
		}
	}
	return best
}

// lesionCues describe the lesion a skin or mucosal complaint is about.
var lesionCues = cueSet{"rash", "lesion", "ulcer", "nodule", "papule", "plaque", " lump", " mass", "eruption", "blister"}

// ComplaintTopics is NarrativeTopics for a history sentence of a case whose
// opening complaint is known: where the complaint is a lesion, a sentence
// whose only symptom words describe lesions tells the complaint itself (its
// onset, course, place), not another symptom, so it is not "associated".
func ComplaintTopics(sentence, opening string) []string {
	topics := NarrativeTopics(sentence)
	t := " " + strings.ToLower(sentence) + " "
	if !slices.Contains(topics, clinic.TopicAssociated) || len(topics) == 1 || !lesionCues.in(" "+strings.ToLower(opening)+" ") {
		return topics
	}
	for _, c := range symptomCues {
		if strings.Contains(t, c) && !slices.Contains(lesionCues, c) {
			return topics // another symptom beside the lesion
		}
	}
	rest := slices.DeleteFunc(slices.Clone(topics), func(x string) bool { return x == clinic.TopicAssociated || x == clinic.TopicSystems })
	if len(rest) == 0 {
		return topics // nothing else to ask it by
	}
	return rest
}
