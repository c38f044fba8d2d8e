package synth

// evidenceSupport ties each evidence key point of a condition (in table order)
// to what supports it in a case, so that version 2 keeps a key point only when
// its support is present. A reference is pN (the condition's N-th positive
// fact), nN (N-th pertinent negative), eN (N-th examination finding) or
// t:NAME (the condition's result for test NAME, or the normal result where the
// condition lists a normal one); "a+b" needs both, "a|b" either.
var evidenceSupport = map[string][]string{
	"stable_angina":            {"p2+p0", "p1", "p6+p5", "t:troponin", "t:ecg"},
	"gerd":                     {"p1+p0", "p0", "p2", "p4", "n0"},
	"costochondritis":          {"e0", "p1", "p2", "t:ecg"},
	"pericarditis":             {"p0+p1", "p2", "e0", "t:ecg", "t:c reactive protein"},
	"migraine":                 {"p0", "p1", "p2", "p5", "e0"},
	"tension_headache":         {"p0", "n0", "p1", "e1", "e0"},
	"sah":                      {"p0", "p1", "p2", "t:ct head"},
	"cystitis":                 {"p1+p0", "e0", "n0+n1", "t:urinalysis"},
	"pyelonephritis":           {"p0", "p1", "e0", "t:urinalysis", "t:complete blood count+t:c reactive protein"},
	"renal_colic":              {"p0+p1", "p0", "t:urinalysis", "t:ct abdomen", "n0"},
	"bph":                      {"p0", "p1", "e0", "t:urinalysis+t:basic metabolic panel"},
	"asthma":                   {"p0+p2", "p2+p1", "p3", "t:spirometry"},
	"copd":                     {"p0+p4", "p1", "e0", "t:chest x ray"},
	"pneumonia":                {"p0+p3", "p1", "e0", "t:chest x ray", "t:complete blood count|t:c reactive protein"},
	"acute_bronchitis":         {"p0", "e0", "e1", "t:c reactive protein"},
	"strep_pharyngitis":        {"p0", "e0", "e0", "n0", "t:rapid strep test"},
	"mono":                     {"p0", "e0", "e1", "t:monospot", "t:complete blood count"},
	"otitis_media":             {"p0+p1", "p2", "e0"},
	"sinusitis":                {"p0+p1", "p2|e0", "p3", "e0"},
	"gastroenteritis":          {"p0+p1", "p2", "e0", "n0"},
	"biliary_colic":            {"p0+p1", "p2", "n0+n1", "t:abdominal ultrasound"},
	"appendicitis":             {"p0", "p2", "e0", "t:complete blood count"},
	"peptic_ulcer":             {"p0+p1", "p2", "t:h pylori breath test", "e0"},
	"mechanical_back_pain":     {"p0+p1", "n1", "n0", "e0"},
	"sciatica":                 {"p0", "e0", "e0|p2", "n0"},
	"knee_oa":                  {"p2+p0", "p1", "e0", "t:joint x ray"},
	"gout":                     {"e0", "p0", "p3+p4", "p5", "t:basic metabolic panel"},
	"bppv":                     {"p0+p2", "e0", "n0", "e0"},
	"carpal_tunnel":            {"p0", "p1", "e0"},
	"hypertension":             {"p0", "p1", "t:ecg", "n0|e1"},
	"atrial_fibrillation":      {"p0", "e0", "t:ecg", "p1"},
	"dvt":                      {"p0", "p1", "t:d dimer", "t:doppler ultrasound leg"},
	"t2dm":                     {"p0", "t:hba1c", "t:blood glucose", "p3+e0"},
	"hypothyroidism":           {"p0+p1", "e0", "t:thyroid function tests"},
	"hyperthyroidism":          {"p1", "p0+p2|e0", "e0+e1|t:ecg", "t:thyroid function tests"},
	"iron_deficiency":          {"p0", "p1", "e0|p2", "t:complete blood count+t:ferritin"},
	"depression":               {"p0", "p1", "p2", "t:thyroid function tests"},
	"gad":                      {"p0+p1", "p2", "t:thyroid function tests"},
	"panic_disorder":           {"p0", "p1", "p3", "t:ecg+t:thyroid function tests"},
	"cellulitis":               {"p0", "p1", "p2|e1", "t:complete blood count|t:c reactive protein"},
	"eczema":                   {"p0+p1", "p2", "p3", "e0"},
	"shingles":                 {"e0", "p1", "p3"},
	"bacterial_conjunctivitis": {"e0", "p1", "e0"},
	"allergic_conjunctivitis":  {"p0", "p1", "p2"},
	"bacterial_vaginosis":      {"p0", "p1", "t:sti swab"},
	"vulvovaginal_candidiasis": {"p0", "p1", "p2"},
}

// extraResults are abnormal results version 2 adds where a condition would
// plausibly show them on a test its version 1 entry leaves out, now that every
// catalog test returns a result for every case.
var extraResults = map[string][]string{
	"copd":         {"ct chest|Centrilobular emphysema, no consolidation or mass.", "peak flow|Peak flow 52% of predicted with little variability."},
	"pneumonia":    {"ct chest|Right lower lobe consolidation with air bronchograms."},
	"renal_colic":  {"renal ultrasound|Mild left hydronephrosis."},
	"appendicitis": {"abdominal ultrasound|Non-compressible appendix of 9 mm with surrounding free fluid.", "ct abdomen|Inflamed appendix with periappendiceal fat stranding."},
	"sah":          {"mri brain|Blood in the basal cisterns and sylvian fissures."},
	"knee_oa":      {"mri knee|Medial compartment cartilage loss with osteophytes and a small effusion."},
	"mono":         {"abdominal ultrasound|Mildly enlarged spleen of 14 cm; liver normal."},
	"bph":          {"pelvic ultrasound|Enlarged prostate of about 55 mL with a post-void residual of 90 mL."},
}

// listedNormal are results of the condition table that are normal though
// version 1 does not read them so (looksNormal); version 2 serves its own normal
// result for them, like for every other normal test.
var listedNormal = map[string]bool{"bph/urinalysis": true}

// distractor is a comorbidity or a medicine unrelated to the presenting
// condition: history a real patient brings that the doctor has to weigh and set aside.
type distractor struct {
	past, med string
	avoidSys  []string // conditions of these systems never get it
	avoidKeys []string // nor these conditions
	sex       string   // "" for either
	minAge    int
	maxAge    int // 0: no upper bound
}

var distractors = []distractor{
	{past: "I have an underactive thyroid that is well controlled.", med: "I take levothyroxine every morning.",
		avoidSys: []string{"endocrine", "mental health"}, avoidKeys: []string{"iron_deficiency", "atrial_fibrillation", "carpal_tunnel"}},
	{past: "I had my appendix out as a teenager.", avoidSys: []string{"gastrointestinal"}},
	{past: "I have type 2 diabetes, controlled by diet.", avoidSys: []string{"endocrine"}, avoidKeys: []string{"cellulitis", "carpal_tunnel", "vulvovaginal_candidiasis"}, minAge: 35},
	{past: "I had mild asthma as a child but have not needed an inhaler for years.", avoidSys: []string{"respiratory"}, avoidKeys: []string{"allergic_conjunctivitis", "eczema"}},
	{past: "I broke my wrist falling off a bike years ago.", avoidSys: []string{"musculoskeletal"}, avoidKeys: []string{"carpal_tunnel"}},
	{past: "I get hay fever in the summer.", med: "I take an antihistamine when the pollen is high.", avoidSys: []string{"eye", "respiratory", "skin", "ent"}},
	{past: "I have high cholesterol.", med: "I take a statin at night.", avoidSys: []string{"cardiovascular"}, avoidKeys: []string{"sah"}, minAge: 40},
	{past: "I had my gallbladder taken out a few years ago.", avoidSys: []string{"gastrointestinal"}, minAge: 30},
	{past: "I had a hernia repaired a few years ago.", avoidSys: []string{"gastrointestinal"}, avoidKeys: []string{"dvt"}},
	{past: "I had migraines as a student but none for years.", avoidSys: []string{"neurological"}, avoidKeys: []string{"sinusitis"}},
	{past: "I passed a kidney stone once, years ago.", avoidSys: []string{"renal"}},
	{past: "I had my tonsils out as a child.", avoidSys: []string{"ent"}},
	{med: "I take vitamin D tablets in the winter."},
	{med: "I use a steroid nasal spray for a blocked nose.", avoidSys: []string{"ent", "respiratory", "eye"}},
	{med: "I take the contraceptive pill.", sex: "female", minAge: 18, maxAge: 45, avoidKeys: []string{"dvt", "iron_deficiency"}},
	{med: "I take cod liver oil capsules."},
}

// socialDistractors are everyday details that point nowhere.
var socialDistractors = []string{
	"I live with my partner.", "I look after my grandchildren two days a week.", "I walk the dog every day.",
	"I work shifts in a warehouse.", "I have two children at school.", "I sing in a choir on Thursdays.",
}
