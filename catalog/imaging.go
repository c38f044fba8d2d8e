package catalog

import (
	"strings"

	"github.com/clinevo/clinevo/textmatch"
)

// Imaging modalities, as an imaging order names them: an order of a
// modality and a body region (Imaging) rather than of a catalog name.
const (
	ModalityXRay       = "X-ray"
	ModalityCT         = "CT"
	ModalityMRI        = "MRI"
	ModalityUltrasound = "ultrasound"
)

// Modalities lists the imaging modalities in order.
var Modalities = []string{ModalityXRay, ModalityCT, ModalityMRI, ModalityUltrasound}

// ImagingStudy is one imaging item of the catalog by modality and body region.
type ImagingStudy struct {
	Name     string   // catalog name
	Modality string   // one of Modalities
	Region   string   // the region as an order names it
	Words    []string // region words an order may use for it
}

// ImagingStudies are the catalog's imaging items by modality and region.
var ImagingStudies = []ImagingStudy{
	{"chest x ray", ModalityXRay, "chest", []string{"chest", "lung", "thorax"}},
	{"abdominal x ray", ModalityXRay, "abdomen", []string{"abdomen", "abdominal"}},
	{"joint x ray", ModalityXRay, "joint", []string{"joint", "knee", "ankle", "wrist", "hand", "shoulder", "hip", "limb", "foot"}},
	{"spine x ray", ModalityXRay, "spine", []string{"spine", "lumbar", "back"}},
	{"ct head", ModalityCT, "head", []string{"head", "brain"}},
	{"ct abdomen", ModalityCT, "abdomen", []string{"abdomen", "abdominal", "pelvis", "kidney", "renal", "urinary"}},
	{"ct chest", ModalityCT, "chest", []string{"chest", "lung", "thorax", "pulmonary"}},
	{"mri brain", ModalityMRI, "head", []string{"head", "brain"}},
	{"mri spine", ModalityMRI, "spine", []string{"spine", "lumbar", "back"}},
	{"mri knee", ModalityMRI, "knee", []string{"knee", "joint"}},
	{"abdominal ultrasound", ModalityUltrasound, "abdomen", []string{"abdomen", "abdominal", "liver", "gallbladder", "upper"}},
	{"renal ultrasound", ModalityUltrasound, "kidney", []string{"kidney", "renal", "bladder", "urinary"}},
	{"pelvic ultrasound", ModalityUltrasound, "pelvis", []string{"pelvis", "pelvic", "prostate", "uterus", "ovary"}},
	{"echocardiogram", ModalityUltrasound, "heart", []string{"heart", "cardiac"}},
	{"doppler ultrasound leg", ModalityUltrasound, "leg", []string{"leg", "calf", "lower limb", "vein", "venous"}},
}

// Imaging returns the study an order of a modality and a region names: the
// study of that modality whose region words meet the most words of the
// region, the first in table order among equals. ok is false when no study of
// the modality covers the region.
func Imaging(modality, region string) (ImagingStudy, bool) {
	words := textmatch.Set(region)
	best, bestN := ImagingStudy{}, 0
	for _, st := range ImagingStudies {
		if !strings.EqualFold(st.Modality, strings.TrimSpace(modality)) {
			continue
		}
		n := 0
		for _, w := range st.Words {
			if ws := textmatch.Set(w); len(ws) > 0 && textmatch.Subset(ws, words) {
				n++
			}
		}
		if n > bestN {
			best, bestN = st, n
		}
	}
	return best, bestN > 0
}

// ImagingOf returns the study a catalog name is, if it is an imaging study.
func ImagingOf(name string) (ImagingStudy, bool) {
	for _, st := range ImagingStudies {
		if st.Name == name {
			return st, true
		}
	}
	return ImagingStudy{}, false
}
