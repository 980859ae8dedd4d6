//! A command's copy-on-write layer where the machine makes it hard: a project on a file system
//! overlayfs will not take as its lower folder, and a disk that fills while a file is copied up.
//! Each runs the real `tandem-cli tool run_command` inside a user and mount namespace of the
//! test's own, where the file systems are mounted for it.

use std::process::Command;

/// Runs `script` in a fresh user and mount namespace with `$CLI` the tandem-cli binary and
/// `$D` a folder of the test's; stdout and stderr.
fn in_namespace(dir: &std::path::Path, script: &str) -> (Option<i32>, String, String) {
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c", script])
        .env("D", dir)
        .env("CLI", env!("CARGO_BIN_EXE_tandem-cli"))
        .env("XDG_CONFIG_HOME", dir.join("no-user-config"))
        .env("TANDEM_DATA_DIR", dir.join("data"))
        .env("TANDEM_NO_KEYCHAIN", "1")
        .output()
        .expect("unshare");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_project_whose_file_system_refuses_an_overlay_still_runs_its_commands() {
    if !sandbox::probe().layers.project_layer {
        eprintln!("no unprivileged overlays on this machine: nothing to refuse");
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    // The project sits two overlays deep: the kernel stacks no deeper, so a layer over it is
    // refused, as overlayfs refuses some file systems below it.
    let script = r#"
        cd "$D" && mkdir -p a b c m1 b2 c2 m2 || exit 97
        mount -t overlay overlay -o lowerdir=a,upperdir=b,workdir=c,userxattr m1 || exit 97
        mount -t overlay overlay -o lowerdir=m1,upperdir=b2,workdir=c2,userxattr m2 || exit 97
        mkdir -p m2/project && printf 'alpha\n' > m2/project/notes.txt
        "$CLI" tool run_command '{"command": "echo made > made-it && echo ran"}' --approve --mode full_auto --project "$D/m2/project"
        echo "exit=$?"
        printf 'made: '; cat "$D/m2/project/made-it"
        "$CLI" sandbox check --project "$D/m2/project" | grep 'this project'
        "$CLI" sandbox check --project "$D/m1" | grep 'this project'
    "#;
    let (code, stdout, stderr) = in_namespace(dir.path(), script);
    assert_ne!(code, Some(97), "could not mount the overlays: {stderr}");
    assert!(stdout.contains("ran\n"), "{stdout}{stderr}");
    assert!(
        stdout.contains("does not take a copy-on-write layer"),
        "the first command says why it ran without one: {stdout}{stderr}"
    );
    assert!(stdout.contains("exit=0"), "{stdout}{stderr}");
    assert!(stdout.contains("made: made"), "{stdout}{stderr}");
    assert!(!stderr.contains("could not start"), "{stderr}");
    // `sandbox check` says which projects are layered.
    assert!(
        stdout.contains("this project:       NOT layered: its file system refuses"),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains("this project:       commands run over a layer of it"),
        "{stdout}{stderr}"
    );
}

#[test]
fn a_disk_that_fills_during_copy_up_leaves_the_project_as_it_was() {
    if !sandbox::probe().layers.project_layer {
        eprintln!("no unprivileged overlays on this machine");
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    // The project and the command's layer (the tool's session folder, under TMPDIR) share a
    // 2 MB disk; the file the command rewrites is 1.2 MB, so its copy in the layer runs out
    // of room.
    let script = r#"
        mkdir -p "$D/disk" && mount -t tmpfs -o size=2m tmpfs "$D/disk" || exit 97
        mkdir -p "$D/disk/project" "$D/disk/tmp" && cd "$D/disk/project" || exit 97
        head -c 1200000 /dev/zero | tr '\0' 'a' > big.txt
        printf 'x = 1\n' > calc.py
        before=$(md5sum big.txt)
        TMPDIR="$D/disk/tmp" "$CLI" tool run_command '{"command": "sed -i s/a/b/ big.txt; echo sed=$?; echo y = 2 > calc.py"}' --approve --mode full_auto --project "$D/disk/project"
        echo "exit=$?"
        [ "$(md5sum big.txt)" = "$before" ] && echo "big.txt unchanged"
        printf 'calc: '; cat calc.py
        printf 'layers left: '; find "$D/disk/tmp" -path '*/layers/*' -name upper | wc -l
        printf 'project: '; ls -A | grep -vx .tandem | tr '\n' ' '; echo
    "#;
    let (code, stdout, stderr) = in_namespace(dir.path(), script);
    assert_ne!(code, Some(97), "could not mount the disk: {stderr}");
    // sed could not write its copy: it failed, and the project's file is untouched.
    assert!(!stdout.contains("sed=0"), "{stdout}{stderr}");
    assert!(stdout.contains("big.txt unchanged"), "{stdout}{stderr}");
    assert!(stdout.contains("layers left: 0"), "{stdout}{stderr}");
    // Nothing half-written is left in the project.
    assert!(
        stdout.contains("project: big.txt calc.py \n"),
        "{stdout}{stderr}"
    );
}

#[test]
fn a_landing_that_fills_the_projects_disk_leaves_nothing_half_copied() {
    if !sandbox::probe().layers.project_layer {
        eprintln!("no unprivileged overlays on this machine");
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    // The project is the top of its own 2 MB disk, so its layer is on another disk (the
    // session's) and landing copies; the disk has no room for the 1.2 MB the command rewrote.
    let script = r#"
        mkdir -p "$D/project" && mount -t tmpfs -o size=2m tmpfs "$D/project" || exit 97
        cd "$D/project" || exit 97
        head -c 1200000 /dev/zero | tr '\0' 'a' > big.txt
        before=$(md5sum big.txt)
        "$CLI" tool run_command '{"command": "sed -i s/a/b/ big.txt"}' --approve --mode full_auto --project "$D/project"
        echo "exit=$?"
        [ "$(md5sum big.txt)" = "$before" ] && echo "big.txt unchanged"
        printf 'project: '; ls -A | grep -vx .tandem | tr '\n' ' '; echo
    "#;
    let (code, stdout, stderr) = in_namespace(dir.path(), script);
    assert_ne!(code, Some(97), "could not mount the disk: {stderr}");
    assert!(
        stdout.contains("Not landed: big.txt (No space left on device"),
        "{stdout}{stderr}"
    );
    assert!(stdout.contains("big.txt unchanged"), "{stdout}{stderr}");
    assert!(stdout.contains("project: big.txt \n"), "{stdout}{stderr}");
}

#[test]
fn a_project_on_another_disk_than_the_session_keeps_its_layers_on_its_own_disk() {
    if !sandbox::probe().layers.project_layer {
        eprintln!("no unprivileged overlays on this machine");
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    // The session (TMPDIR) is on the machine's disk, the project below the top of a 3 MB disk
    // of its own: its layers go to that disk's top (only the user may enter), so what the
    // command rewrote lands by a rename, not a copy across disks.
    let script = r#"
        mkdir -p "$D/disk" && mount -t tmpfs -o size=3m tmpfs "$D/disk" || exit 97
        mkdir -p "$D/disk/project" && cd "$D/disk/project" || exit 97
        head -c 1000000 /dev/zero | tr '\0' 'a' > big.txt
        head -c 600000 /dev/zero > other.bin
        "$CLI" tool run_command '{"command": "sed -i s/a/b/ big.txt"}' --approve --mode full_auto --project "$D/disk/project"
        echo "exit=$?"
        printf 'first: '; head -c 3 big.txt; echo
        printf 'layers folder: '; stat -c %a "$D/disk/.tandem-layers-0"
        printf 'layers left: '; ls -A "$D/disk/.tandem-layers-0" | grep -v attribute-probe | wc -l
        printf 'project: '; ls -A | grep -vx .tandem | tr '\n' ' '; echo
    "#;
    let (code, stdout, stderr) = in_namespace(dir.path(), script);
    assert_ne!(code, Some(97), "could not mount the disk: {stderr}");
    assert!(stdout.contains("first: baa"), "{stdout}{stderr}");
    assert!(stdout.contains("layers folder: 700"), "{stdout}{stderr}");
    assert!(stdout.contains("layers left: 0"), "{stdout}{stderr}");
    assert!(
        stdout.contains("project: big.txt other.bin \n"),
        "{stdout}{stderr}"
    );
}
