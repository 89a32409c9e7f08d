//! ANSI colour, used only when the binary decides the output is a terminal without NO_COLOR.

#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub enabled: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    pub fn red(self, text: &str) -> String {
        self.paint("1;31", text)
    }
    pub fn yellow(self, text: &str) -> String {
        self.paint("1;33", text)
    }
    pub fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
}
