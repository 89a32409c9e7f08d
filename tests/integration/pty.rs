//! A program run on a pseudo-terminal, as a person runs it: its stdin, stdout and stderr are
//! the terminal (so `is_terminal` holds), its output is read as it comes, and answers are
//! typed when a question shows.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Pty {
    master: File,
    child: Child,
    output: Arc<Mutex<Vec<u8>>>,
    /// How much of the output the questions answered so far had seen.
    seen: usize,
}

impl Pty {
    /// Starts `cmd` with a new terminal as its controlling one.
    pub fn spawn(mut cmd: Command) -> Pty {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two descriptors into the integers given; the name, the
        // termios and the window size may be null.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened and are owned here alone.
        let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let io = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
        cmd.stdin(io(&slave)).stdout(io(&slave)).stderr(io(&slave));
        // SAFETY: setsid and the ioctl are async-signal-safe and touch no memory of the
        // parent; they make the terminal (fd 0 in the child) the session's.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().unwrap();
        drop(slave);
        let output = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let sink = Arc::clone(&output);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the child and every copy of the slave are gone: the end.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            master,
            child,
            output,
            seen: 0,
        }
    }

    /// Everything the program wrote so far (stdout and stderr, as the terminal shows them).
    pub fn output(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// Waits until the output after the last answer holds `question`, then types `answer`
    /// and Enter.
    pub fn answer(&mut self, question: &str, answer: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = self.output();
            if let Some(at) = out[self.seen.min(out.len())..].find(question) {
                self.seen += at + question.len();
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no {question:?} within a minute; the terminal shows:\n{out}"
            );
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the program ended ({status}) before {question:?}:\n{out}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.master
            .write_all(format!("{answer}\n").as_bytes())
            .unwrap();
    }

    /// Waits for the program to end; its exit code and the whole output.
    pub fn wait(mut self) -> (i32, String) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the program did not end:\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // The reader drains what is left once the child is gone.
        std::thread::sleep(Duration::from_millis(100));
        (status.code().unwrap_or(-1), self.output())
    }
}
