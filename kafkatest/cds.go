package kafkatest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// A broker JVM's start is mostly the JVM loading, verifying and linking
// the ~9,000 classes Kafka needs before it serves; on 2 shared cores that
// CPU is what a restarted broker waits for. Class-data sharing (AppCDS,
// Java's own -Xshare) maps those classes from an archive instead: the
// broker runs the same bytecode, only its start costs less (measured here:
// 3.3 instead of 5.0 CPU seconds per start, a 3-node launch 6 s instead of
// 9-14 s). The archive is built once per machine, for one java and one set
// of jars: the first cluster's node 0 writes the list of classes it loads
// while starting, Launch dumps the archive from it, and every later start
// (restarts in the same cluster included) uses it. A JVM that finds the
// archive stale or unusable starts without it (-Xshare:auto).

// cdsDisabled reports whether ROLLSAFE_KAFKA_CDS=off turns the archive off.
func cdsDisabled() bool { return os.Getenv("ROLLSAFE_KAFKA_CDS") == "off" }

// cdsArchive is where the class-data archive of rt's java and jars lives:
// ${XDG_CACHE_HOME:-~/.cache}/rollsafe/cds/<hash>.jsa, the hash covering
// the java binary and every jar (name, size, modification time), so a new
// JDK or a new Kafka gets an archive of its own.
func cdsArchive(rt Runtime) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	java, err := filepath.EvalSymlinks(rt.Java)
	if err != nil {
		return "", err
	}
	stamp := func(path string) {
		fi, err := os.Stat(path)
		if err == nil {
			fmt.Fprintf(h, "%s %d %d\n", path, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	stamp(java)
	stamp(filepath.Join(filepath.Dir(java), "..", "lib", "server", "libjvm.so"))
	jars, err := filepath.Glob(filepath.Join(rt.Lib, "*.jar"))
	if err != nil || len(jars) == 0 {
		return "", fmt.Errorf("no jars in %s", rt.Lib)
	}
	for _, j := range jars {
		stamp(j)
	}
	sum := hex.EncodeToString(h.Sum(nil))[:24]
	return filepath.Join(cache, "rollsafe", "cds", "kafka-"+rt.Version.String()+"-"+sum+".jsa"), nil
}

// cdsArgs are the JVM flags that use archive.
func cdsArgs(archive string) []string {
	return []string{"-XX:SharedArchiveFile=" + archive, "-Xshare:auto"}
}

// buildCDS dumps the class-data archive from the class list a running
// broker has written so far (its last line may be partial: dropped) and
// renames it into place once complete.
func buildCDS(ctx context.Context, rt Runtime, list, archive string) (time.Duration, error) {
	began := time.Now()
	b, err := os.ReadFile(list)
	if err != nil {
		return 0, err
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	}
	if err := os.MkdirAll(filepath.Dir(archive), 0o755); err != nil {
		return 0, err
	}
	done := list + ".complete"
	if err := os.WriteFile(done, b, 0o644); err != nil {
		return 0, err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", archive, os.Getpid())
	defer os.Remove(tmp)
	cmd := exec.CommandContext(ctx, rt.Java, "-Xshare:dump", "-XX:+UseG1GC", "-XX:-UsePerfData",
		"-XX:SharedClassListFile="+done, "-XX:SharedArchiveFile="+tmp, "-cp", rt.Classpath())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := spawn(cmd); err != nil {
		return 0, err
	}
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("%w: %s", err, lastLines(out.String(), 20))
	}
	if err := os.Rename(tmp, archive); err != nil {
		return 0, err
	}
	return time.Since(began), nil
}

// lastLines returns s's last n lines.
func lastLines(s string, n int) string {
	lines := bytes.Split(bytes.TrimRight([]byte(s), "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// cdsPlan is what a launch does about the archive.
type cdsPlan struct {
	archive string // the archive's path; "" without one
	list    string // the class list node 0 records, when the archive is still to be built
}

func (p cdsPlan) describe() string {
	switch {
	case p.archive == "":
		return ", no class-data archive"
	case p.list != "":
		return ", recording the class list for a class-data archive"
	default:
		return ", class-data archive " + filepath.Base(p.archive)
	}
}

// prepareCDS runs before the nodes first start: with an archive they use
// it; without one node 0 records the classes it loads.
func (c *Cluster) prepareCDS() {
	if cdsDisabled() {
		return
	}
	archive, err := cdsArchive(c.cfg.Runtime)
	if err != nil {
		c.cfg.Logf("kafkatest: no class-data archive: %v", err)
		return
	}
	c.cds.archive = archive
	if _, err := os.Stat(archive); err == nil {
		for _, nd := range c.nodes {
			nd.setCDSArgs(cdsArgs(archive)...)
		}
		return
	}
	c.cds.list = filepath.Join(c.nodes[0].dir, "classes.lst")
	c.nodes[0].setCDSArgs("-XX:DumpLoadedClassList=" + c.cds.list)
}

// finishCDS runs once every node serves: if node 0 recorded its classes,
// the archive is built from them and every later start uses it. Failing
// to build it only costs speed: it is logged, not returned.
func (c *Cluster) finishCDS(ctx context.Context) {
	if c.cds.list == "" {
		return
	}
	took, err := buildCDS(ctx, c.cfg.Runtime, c.cds.list, c.cds.archive)
	if err != nil {
		c.cfg.Logf("kafkatest: building the class-data archive %s failed (brokers start without it): %v", c.cds.archive, err)
		c.nodes[0].setCDSArgs()
		return
	}
	c.cfg.Logf("kafkatest: class-data archive %s built in %v; broker starts use it from now on", c.cds.archive, took.Round(time.Millisecond))
	for _, nd := range c.nodes {
		nd.setCDSArgs(cdsArgs(c.cds.archive)...)
	}
	c.cds.list = ""
}
