package delta

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pqscan/pqscan/internal/errf"
)

// LogKind is what a file in _delta_log/ is.
type LogKind uint8

const (
	KindOther          LogKind = iota
	KindCommit                 // 00000000000000000010.json
	KindCheckpoint             // 00000000000000000010.checkpoint.parquet (classic)
	KindCheckpointPart         // 00000000000000000010.checkpoint.0000000001.0000000003.parquet
	KindCheckpointV2           // 00000000000000000010.checkpoint.<uuid>.json|parquet
	KindCRC                    // 00000000000000000010.crc (ignored by readers)
	KindCompaction             // 00000000000000000004.00000000000000000006.compacted.json (optional)
	KindLastCheckpoint         // _last_checkpoint
)

// LogFile is a parsed _delta_log/ entry name.
type LogFile struct {
	Name    string // base name under _delta_log/
	Kind    LogKind
	Version int64
	End     int64  // KindCompaction: the last version covered (Version is the first)
	Part    int    // KindCheckpointPart: 1-based part
	Parts   int    // KindCheckpointPart: number of parts
	UUID    string // KindCheckpointV2
	JSON    bool   // KindCheckpointV2 in JSON form (parse with ParseCommit)
	Size    int64  // from the listing, -1 when unknown
	ModTime int64  // from the listing: milliseconds since the epoch, 0 when unknown
}

// ParseLogName classifies a base name (a path is reduced to its last segment). ok is false for
// names that are not Delta log files (temporary files, .crc of Hadoop, sidecars' directory).
func ParseLogName(name string) (LogFile, bool) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	f := LogFile{Name: name, Size: -1}
	if name == "_last_checkpoint" {
		f.Kind = KindLastCheckpoint
		return f, true
	}
	if len(name) < 21 || name[20] != '.' {
		return LogFile{}, false
	}
	v, ok := version20(name[:20])
	if !ok {
		return LogFile{}, false
	}
	f.Version = v
	rest := name[21:]
	switch {
	case rest == "json":
		f.Kind = KindCommit
	case rest == "crc":
		f.Kind = KindCRC
	case rest == "checkpoint.parquet":
		f.Kind = KindCheckpoint
	case strings.HasPrefix(rest, "checkpoint."):
		mid := strings.TrimPrefix(rest, "checkpoint.")
		parts := strings.Split(mid, ".")
		switch {
		case len(parts) == 3 && parts[2] == "parquet" && len(parts[0]) == 10 && len(parts[1]) == 10:
			p, ok1 := digitsInt(parts[0])
			n, ok2 := digitsInt(parts[1])
			if !ok1 || !ok2 || p < 1 || p > n {
				return LogFile{}, false
			}
			f.Kind, f.Part, f.Parts = KindCheckpointPart, p, n
		case len(parts) == 2 && (parts[1] == "json" || parts[1] == "parquet") && isUUID(parts[0]):
			f.Kind, f.UUID, f.JSON = KindCheckpointV2, parts[0], parts[1] == "json"
		default:
			return LogFile{}, false
		}
	case strings.HasSuffix(rest, ".compacted.json") && len(rest) == 20+len(".compacted.json"):
		end, ok := version20(rest[:20])
		if !ok || end < v {
			return LogFile{}, false
		}
		f.Kind, f.End = KindCompaction, end
	default:
		return LogFile{}, false
	}
	return f, true
}

func version20(s string) (int64, bool) {
	if len(s) != 20 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

func digitsInt(s string) (int, bool) {
	v, ok := version20(strings.Repeat("0", 20-len(s)) + s)
	return int(v), ok && v <= 1<<31
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// CommitName returns the base name of version v's commit file.
func CommitName(v int64) string { return zeroPad(int64(v), 20) + ".json" }

// Plan says which _delta_log/ objects make up the snapshot: the checkpoint files (empty when
// the replay starts at version 0) and the commits after it, in order.
type Plan struct {
	Version           int64    // the snapshot's version
	CheckpointVersion int64    // -1: no checkpoint, replay from commit 0
	Checkpoint        []string // base names; all parts of a multi-part checkpoint
	CheckpointJSON    bool     // Checkpoint is one V2 JSON file (parse with ParseCommit)
	// Commits are the base names of the commits CheckpointVersion+1 .. Version in order, a
	// log compaction file (ParseLogName gives its range) standing for the commits it covers.
	Commits []string
}

// PlanListing plans a snapshot from a listing of _delta_log/ (names and sizes, any order).
// version < 0 asks for the latest. The newest complete checkpoint at or before the version is
// used (preferring a V2 JSON checkpoint, then V2 Parquet, classic, multi-part); every commit
// after it up to the version must be listed, else ErrVersionGap. A version newer than the log,
// or older than the oldest reconstructable one, is ErrVersionNotFound.
//
// A log compaction file x.y.compacted.json (PROTOCOL.md "Log Compaction Files") replaces the
// commits x..y when it fits: after the checkpoint, not beyond the version, and every commit
// it covers listed (a compaction the listing contradicts is ignored, never trusted). Starting
// after the checkpoint, the widest one that begins at the next version is taken.
func PlanListing(files []LogFile, version int64) (Plan, error) {
	commits := map[int64]string{}
	type cp struct {
		rank  int
		names []string
		json  bool
	}
	cps := map[int64]cp{}
	parts := map[int64]map[int]map[int]string{} // version -> parts count -> part -> name
	var compactions []LogFile
	latest := int64(-1)
	offer := func(v int64, c cp) {
		if old, ok := cps[v]; !ok || c.rank < old.rank || c.rank == old.rank && c.names[0] < old.names[0] {
			cps[v] = c
		}
	}
	for _, f := range files {
		switch f.Kind {
		case KindCommit:
			commits[f.Version] = f.Name
			latest = max(latest, f.Version)
		case KindCheckpointV2:
			rank := 1
			if f.JSON {
				rank = 0
			}
			offer(f.Version, cp{rank: rank, names: []string{f.Name}, json: f.JSON})
			latest = max(latest, f.Version)
		case KindCheckpoint:
			offer(f.Version, cp{rank: 2, names: []string{f.Name}})
			latest = max(latest, f.Version)
		case KindCheckpointPart:
			if parts[f.Version] == nil {
				parts[f.Version] = map[int]map[int]string{}
			}
			if parts[f.Version][f.Parts] == nil {
				parts[f.Version][f.Parts] = map[int]string{}
			}
			parts[f.Version][f.Parts][f.Part] = f.Name
		case KindCompaction:
			compactions = append(compactions, f)
		}
	}
	for v, byCount := range parts {
		for n, got := range byCount {
			if len(got) != n {
				continue // incomplete multi-part checkpoint: unusable (PROTOCOL.md)
			}
			names := make([]string, 0, n)
			for p := 1; p <= n; p++ {
				names = append(names, got[p])
			}
			offer(v, cp{rank: 3, names: names})
			latest = max(latest, v)
		}
	}
	if latest < 0 {
		return Plan{}, errf.Errorf("%w: no commit or checkpoint in _delta_log/", ErrNotATable)
	}
	target := version
	if target < 0 {
		target = latest
	}
	if target > latest {
		return Plan{}, errf.Errorf("%w: version %d requested, latest is %d", ErrVersionNotFound, target, latest)
	}
	p := Plan{Version: target, CheckpointVersion: -1}
	best := int64(-1)
	for v := range cps {
		if v <= target && v > best {
			best = v
		}
	}
	if best >= 0 {
		p.CheckpointVersion, p.Checkpoint, p.CheckpointJSON = best, cps[best].names, cps[best].json
	}
	for v := p.CheckpointVersion + 1; v <= target; v++ {
		name, ok := commits[v]
		if !ok {
			if p.CheckpointVersion < 0 && v == 0 {
				return Plan{}, errf.Errorf("%w: version %d: no checkpoint at or before it and commit 0 is gone", ErrVersionNotFound, target)
			}
			return Plan{}, errf.Errorf("%w: commit %s missing before version %d", ErrVersionGap, CommitName(v), target)
		}
		p.Commits = append(p.Commits, name)
	}
	// Every commit is listed: a compaction now only has to fit the range.
	out, next := p.Commits[:0:0], p.CheckpointVersion+1
	for next <= target {
		best := LogFile{End: -1}
		for _, c := range compactions {
			if c.Version == next && c.End <= target && (c.End > best.End || c.End == best.End && c.Name < best.Name) {
				best = c
			}
		}
		if best.End < 0 {
			out = append(out, commits[next])
			next++
			continue
		}
		out = append(out, best.Name)
		next = best.End + 1
	}
	p.Commits = out
	return p, nil
}

// ListStartAfter returns the ListObjectsV2 start-after key (relative to _delta_log/) that
// skips the log before the checkpoint _last_checkpoint names: listing a long-lived table then
// costs one page instead of one per thousand commits. Only valid for the latest snapshot (an
// older version may need earlier files).
func ListStartAfter(lc *LastCheckpoint) string {
	if lc == nil || lc.Version <= 0 {
		return ""
	}
	// "00000000000000000010" sorts before "00000000000000000010.checkpoint.parquet".
	return zeroPad(lc.Version, 20)
}

// CheckpointNames returns the checkpoint files _last_checkpoint points to (for a host that
// cannot list): the V2 file it names, the parts of a multi-part checkpoint, or the classic
// single file.
func CheckpointNames(lc *LastCheckpoint) (names []string, isJSON bool) {
	switch {
	case lc.V2Checkpoint != nil:
		f, _ := ParseLogName(lc.V2Checkpoint.Path)
		return []string{f.Name}, f.JSON
	case lc.Parts != nil && *lc.Parts > 1:
		for i := 1; i <= *lc.Parts; i++ {
			names = append(names, zeroPad(lc.Version, 20)+".checkpoint."+zeroPad(int64(i), 10)+"."+zeroPad(int64(*lc.Parts), 10)+".parquet")
		}
		return names, false
	}
	return []string{zeroPad(lc.Version, 20) + ".checkpoint.parquet"}, false
}

// SidecarNames returns the files (relative to _delta_log/) that a checkpoint's sidecar actions
// name, in order; sidecar paths are relative to _delta_log/_sidecars/ unless absolute.
func SidecarNames(actions []Action) []string {
	var out []string
	for _, a := range actions {
		if a.Sidecar != nil {
			out = append(out, sidecarName(a.Sidecar.Path))
		}
	}
	sort.Strings(out)
	return out
}

func sidecarName(p string) string {
	if IsAbsolute(p) {
		return p
	}
	return "_sidecars/" + p
}

// zeroPad writes v in decimal padded with zeros to width characters, as fmt's %0Nd does (a
// minus sign counts in the width).
func zeroPad(v int64, width int) string {
	const zeros = "00000000000000000000"
	d, sign := strconv.FormatInt(v, 10), ""
	if v < 0 {
		d, sign = d[1:], "-"
		width--
	}
	if n := width - len(d); n > 0 {
		return sign + zeros[:n] + d
	}
	return sign + d
}
