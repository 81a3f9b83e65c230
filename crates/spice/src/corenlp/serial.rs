//! A reader of Java's object serialization stream (the format of `englishPCFG.ser.gz`).
//!
//! The grammar of the stream is Java's published "Object Serialization Stream Protocol": a magic
//! number and version, then contents — objects (a class description, then each class's field
//! values from the top of the hierarchy down, then, for a class with its own `writeObject`, the
//! block data and objects it wrote), arrays, strings, enums, back references to earlier ones.
//! [`Graph::read`] decodes a whole stream into an arena of nodes without knowing any class;
//! [`Obj`] reads fields by name and the standard collections (`ArrayList`, `HashMap`) from what
//! their `writeObject` wrote. What the parser needs is taken out of this
//! graph by [`super::model`].

use std::fmt;
use std::rc::Rc;

/// What can be wrong with a serialization stream or with what it holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SerialError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, SerialError> {
    Err(SerialError(msg.into()))
}

const TC_NULL: u8 = 0x70;
const TC_REFERENCE: u8 = 0x71;
const TC_CLASSDESC: u8 = 0x72;
const TC_OBJECT: u8 = 0x73;
const TC_STRING: u8 = 0x74;
const TC_ARRAY: u8 = 0x75;
const TC_CLASS: u8 = 0x76;
const TC_BLOCKDATA: u8 = 0x77;
const TC_ENDBLOCKDATA: u8 = 0x78;
const TC_RESET: u8 = 0x79;
const TC_BLOCKDATALONG: u8 = 0x7A;
const TC_LONGSTRING: u8 = 0x7C;
const TC_PROXYCLASSDESC: u8 = 0x7D;
const TC_ENUM: u8 = 0x7E;
const BASE_HANDLE: u32 = 0x7E_0000;

const SC_WRITE_METHOD: u8 = 0x01;
const SC_SERIALIZABLE: u8 = 0x02;
const SC_EXTERNALIZABLE: u8 = 0x04;
const SC_BLOCK_DATA: u8 = 0x08;

/// A field value or array element: a primitive, null, or a node of the arena.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Null,
    Node(usize),
    Byte(i8),
    Char(u16),
    Double(f64),
    Float(f32),
    Int(i32),
    Long(i64),
    Short(i16),
    Bool(bool),
}

/// One field of a class description: its type code (`B C D F I J S Z` or `L`, `[`) and name.
#[derive(Debug, Clone)]
pub struct FieldDesc {
    pub code: u8,
    pub name: Rc<str>,
}

/// A class description: name, flags, fields in stream order, and its superclass's description.
#[derive(Debug, Clone)]
pub struct ClassDesc {
    pub name: Rc<str>,
    pub flags: u8,
    pub fields: Vec<FieldDesc>,
    pub super_desc: Option<usize>,
}

/// What a class's own `writeObject` wrote after its fields: bytes and objects, in order.
#[derive(Debug, Clone)]
pub enum Written {
    Bytes(Vec<u8>),
    Value(Value),
}

/// The data one class of an object's hierarchy contributed.
#[derive(Debug, Clone)]
pub struct ClassData {
    /// The class's name.
    pub class: Rc<str>,
    pub fields: Vec<(Rc<str>, Value)>,
    pub written: Vec<Written>,
}

/// A primitive array's elements, or an object array's.
#[derive(Debug, Clone)]
pub enum Array {
    Values(Vec<Value>),
    Ints(Vec<i32>),
    Floats(Vec<f32>),
    Doubles(Vec<f64>),
    Longs(Vec<i64>),
    Shorts(Vec<i16>),
    Bytes(Vec<u8>),
    Chars(Vec<u16>),
    Bools(Vec<bool>),
}

/// A node of the arena: everything the stream gives a handle.
#[derive(Debug, Clone)]
pub enum Node {
    ClassDesc(ClassDesc),
    Class(usize),
    String(String),
    Enum {
        class: usize,
        name: String,
    },
    Array {
        class: usize,
        elems: Array,
    },
    /// An object: its class description and the data of each class, top of the hierarchy first.
    Object {
        class: usize,
        data: Vec<ClassData>,
    },
}

/// A decoded stream: the arena and the top-level contents.
pub struct Graph {
    nodes: Vec<Node>,
    pub top: Vec<Value>,
}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Graph({} nodes)", self.nodes.len())
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    nodes: Vec<Node>,
    /// Handle number − [`BASE_HANDLE`] → node.
    handles: Vec<usize>,
    /// How many objects are being read inside one another.
    depth: usize,
}

/// Objects nested deeper than this are refused (a hostile file would otherwise overflow the
/// stack); CoreNLP's models nest a few dozen deep.
const MAX_DEPTH: usize = 1_000;

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], SerialError> {
        if self.data.len() - self.pos < n {
            return err(format!(
                "the stream ends at byte {} inside an item that needs {n} more bytes",
                self.data.len()
            ));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, SerialError> {
        Ok(self.take(1)?[0])
    }

    fn peek(&self) -> Result<u8, SerialError> {
        match self.data.get(self.pos) {
            Some(&b) => Ok(b),
            None => err("the stream ends where an item was expected"),
        }
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], SerialError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn u16(&mut self) -> Result<u16, SerialError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32, SerialError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64, SerialError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    fn len(&mut self) -> Result<usize, SerialError> {
        let n = self.i32()?;
        match usize::try_from(n) {
            Ok(n) if n <= self.data.len() - self.pos + 1 || n == 0 => Ok(n),
            _ => err(format!("a length of {n} at byte {}", self.pos - 4)),
        }
    }

    /// Java's modified UTF-8 of `n` bytes.
    fn utf(&mut self, n: usize) -> Result<String, SerialError> {
        let b = self.take(n)?;
        let mut units = Vec::with_capacity(n);
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let (unit, len) = if c < 0x80 {
                (u16::from(c), 1)
            } else if c & 0xE0 == 0xC0 && i + 1 < b.len() {
                ((u16::from(c & 0x1F) << 6) | u16::from(b[i + 1] & 0x3F), 2)
            } else if c & 0xF0 == 0xE0 && i + 2 < b.len() {
                (
                    (u16::from(c & 0x0F) << 12)
                        | (u16::from(b[i + 1] & 0x3F) << 6)
                        | u16::from(b[i + 2] & 0x3F),
                    3,
                )
            } else {
                return err(format!(
                    "malformed modified UTF-8 at byte {}",
                    self.pos - n + i
                ));
            };
            units.push(unit);
            i += len;
        }
        Ok(String::from_utf16_lossy(&units))
    }

    fn short_utf(&mut self) -> Result<String, SerialError> {
        let n = usize::from(self.u16()?);
        self.utf(n)
    }

    fn new_handle(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        let idx = self.nodes.len() - 1;
        self.handles.push(idx);
        idx
    }

    fn reference(&mut self) -> Result<usize, SerialError> {
        let h = self.i32()? as u32;
        match h
            .checked_sub(BASE_HANDLE)
            .and_then(|i| self.handles.get(i as usize))
        {
            Some(&idx) => Ok(idx),
            None => err(format!("a reference to unknown handle {h:#x}")),
        }
    }

    /// A class description, a reference to one, or null.
    fn class_desc(&mut self) -> Result<Option<usize>, SerialError> {
        match self.u8()? {
            TC_NULL => Ok(None),
            TC_REFERENCE => {
                let idx = self.reference()?;
                match self.nodes[idx] {
                    Node::ClassDesc(_) => Ok(Some(idx)),
                    _ => err(
                        "a reference where a class description was expected names something else",
                    ),
                }
            }
            TC_CLASSDESC => {
                let name = self.short_utf()?;
                let _suid = self.i64()?;
                let idx = self.new_handle(Node::ClassDesc(ClassDesc {
                    name: name.into(),
                    flags: 0,
                    fields: Vec::new(),
                    super_desc: None,
                }));
                let flags = self.u8()?;
                let count = usize::from(self.u16()?);
                let mut fields = Vec::with_capacity(count);
                for _ in 0..count {
                    let code = self.u8()?;
                    let name = self.short_utf()?;
                    if code == b'L' || code == b'[' {
                        // The field's class name, a string object.
                        self.value()?;
                    } else if !b"BCDFIJSZ".contains(&code) {
                        return err(format!("field {name} has unknown type code {code:#x}"));
                    }
                    fields.push(FieldDesc {
                        code,
                        name: name.into(),
                    });
                }
                self.skip_annotation()?;
                let super_desc = self.class_desc()?;
                if let Node::ClassDesc(d) = &mut self.nodes[idx] {
                    d.flags = flags;
                    d.fields = fields;
                    d.super_desc = super_desc;
                }
                Ok(Some(idx))
            }
            TC_PROXYCLASSDESC => err("proxy classes are not part of a parser model"),
            t => err(format!(
                "byte {:#x} at {} where a class description was expected",
                t,
                self.pos - 1
            )),
        }
    }

    /// A class annotation (what `annotateClass` wrote): contents up to the end marker.
    fn skip_annotation(&mut self) -> Result<(), SerialError> {
        self.written().map(|_| ())
    }

    /// Block data and objects up to `TC_ENDBLOCKDATA`.
    fn written(&mut self) -> Result<Vec<Written>, SerialError> {
        let mut out = Vec::new();
        loop {
            match self.peek()? {
                TC_ENDBLOCKDATA => {
                    self.pos += 1;
                    return Ok(out);
                }
                TC_BLOCKDATA => {
                    self.pos += 1;
                    let n = usize::from(self.u8()?);
                    out.push(Written::Bytes(self.take(n)?.to_vec()));
                }
                TC_BLOCKDATALONG => {
                    self.pos += 1;
                    let n = self.len()?;
                    out.push(Written::Bytes(self.take(n)?.to_vec()));
                }
                _ => out.push(Written::Value(self.value()?)),
            }
        }
    }

    fn desc(&self, idx: usize) -> &ClassDesc {
        match &self.nodes[idx] {
            Node::ClassDesc(d) => d,
            _ => unreachable!("class_desc returns class descriptions only"),
        }
    }

    fn primitive(&mut self, code: u8) -> Result<Value, SerialError> {
        Ok(match code {
            b'B' => Value::Byte(self.u8()? as i8),
            b'C' => Value::Char(self.u16()?),
            b'D' => Value::Double(f64::from_bits(self.i64()? as u64)),
            b'F' => Value::Float(f32::from_bits(self.i32()? as u32)),
            b'I' => Value::Int(self.i32()?),
            b'J' => Value::Long(self.i64()?),
            b'S' => Value::Short(self.u16()? as i16),
            b'Z' => Value::Bool(self.u8()? != 0),
            _ => self.value()?,
        })
    }

    /// One content item that is an object (not block data).
    fn value(&mut self) -> Result<Value, SerialError> {
        if self.depth >= MAX_DEPTH {
            return err(format!(
                "objects nested more than {MAX_DEPTH} deep at byte {}",
                self.pos
            ));
        }
        self.depth += 1;
        let v = self.value_here();
        self.depth -= 1;
        v
    }

    fn value_here(&mut self) -> Result<Value, SerialError> {
        let at = self.pos;
        match self.u8()? {
            TC_NULL => Ok(Value::Null),
            TC_REFERENCE => Ok(Value::Node(self.reference()?)),
            TC_STRING => {
                let idx = self.new_handle(Node::String(String::new()));
                let s = self.short_utf()?;
                self.nodes[idx] = Node::String(s);
                Ok(Value::Node(idx))
            }
            TC_LONGSTRING => {
                let idx = self.new_handle(Node::String(String::new()));
                let n = usize::try_from(self.i64()?)
                    .map_err(|_| SerialError("a negative string length".into()))?;
                let s = self.utf(n)?;
                self.nodes[idx] = Node::String(s);
                Ok(Value::Node(idx))
            }
            TC_CLASS => {
                let Some(desc) = self.class_desc()? else {
                    return err(format!("a class with no description at byte {at}"));
                };
                Ok(Value::Node(self.new_handle(Node::Class(desc))))
            }
            TC_CLASSDESC | TC_PROXYCLASSDESC => {
                self.pos -= 1;
                Ok(self.class_desc()?.map_or(Value::Null, Value::Node))
            }
            TC_ENUM => {
                let Some(class) = self.class_desc()? else {
                    return err(format!("an enum with no class at byte {at}"));
                };
                let idx = self.new_handle(Node::Enum {
                    class,
                    name: String::new(),
                });
                let name = match self.value()? {
                    Value::Node(n) => match &self.nodes[n] {
                        Node::String(s) => s.clone(),
                        _ => {
                            return err(format!(
                                "an enum constant at byte {at} is not named by a string"
                            ))
                        }
                    },
                    _ => return err(format!("an enum constant at byte {at} has no name")),
                };
                self.nodes[idx] = Node::Enum { class, name };
                Ok(Value::Node(idx))
            }
            TC_ARRAY => self.array_value(at),
            TC_OBJECT => self.object(at),
            TC_RESET => {
                self.handles.clear();
                self.value_here()
            }
            t => err(format!("unexpected byte {t:#x} at {at}")),
        }
    }

    fn array_value(&mut self, at: usize) -> Result<Value, SerialError> {
        let Some(class) = self.class_desc()? else {
            return err(format!("an array with no class at byte {at}"));
        };
        let idx = self.new_handle(Node::Array {
            class,
            elems: Array::Values(Vec::new()),
        });
        let n = self.len()?;
        let code = self
            .desc(class)
            .name
            .as_bytes()
            .get(1)
            .copied()
            .unwrap_or(0);
        let elems = match code {
            b'I' => Array::Ints((0..n).map(|_| self.i32()).collect::<Result<_, _>>()?),
            b'F' => Array::Floats(
                (0..n)
                    .map(|_| self.i32().map(|b| f32::from_bits(b as u32)))
                    .collect::<Result<_, _>>()?,
            ),
            b'D' => Array::Doubles(
                (0..n)
                    .map(|_| self.i64().map(|b| f64::from_bits(b as u64)))
                    .collect::<Result<_, _>>()?,
            ),
            b'J' => Array::Longs((0..n).map(|_| self.i64()).collect::<Result<_, _>>()?),
            b'S' => Array::Shorts(
                (0..n)
                    .map(|_| self.u16().map(|v| v as i16))
                    .collect::<Result<_, _>>()?,
            ),
            b'B' => Array::Bytes(self.take(n)?.to_vec()),
            b'C' => Array::Chars((0..n).map(|_| self.u16()).collect::<Result<_, _>>()?),
            b'Z' => Array::Bools(
                (0..n)
                    .map(|_| self.u8().map(|b| b != 0))
                    .collect::<Result<_, _>>()?,
            ),
            b'L' | b'[' => Array::Values((0..n).map(|_| self.value()).collect::<Result<_, _>>()?),
            _ => return err(format!("an array of unknown type at byte {at}")),
        };
        self.nodes[idx] = Node::Array { class, elems };
        Ok(Value::Node(idx))
    }

    fn object(&mut self, at: usize) -> Result<Value, SerialError> {
        let Some(class) = self.class_desc()? else {
            return err(format!("an object with no class at byte {at}"));
        };
        let idx = self.new_handle(Node::Object {
            class,
            data: Vec::new(),
        });
        let mut chain = vec![class];
        while let Some(s) = self.desc(*chain.last().unwrap_or(&class)).super_desc {
            chain.push(s);
        }
        let mut data = Vec::with_capacity(chain.len());
        for &c in chain.iter().rev() {
            let desc = self.desc(c);
            let (name, flags, fields) = (desc.name.clone(), desc.flags, desc.fields.clone());
            let desc = ClassDesc {
                name,
                flags,
                fields,
                super_desc: None,
            };
            let mut cd = ClassData {
                class: desc.name.clone(),
                fields: Vec::with_capacity(desc.fields.len()),
                written: Vec::new(),
            };
            if desc.flags & SC_EXTERNALIZABLE != 0 {
                if desc.flags & SC_BLOCK_DATA == 0 {
                    return err(format!("{} is externalizable in the old format", desc.name));
                }
                cd.written = self.written()?;
            } else if desc.flags & SC_SERIALIZABLE != 0 {
                for f in &desc.fields {
                    let v = self.primitive(f.code)?;
                    cd.fields.push((f.name.clone(), v));
                }
                if desc.flags & SC_WRITE_METHOD != 0 {
                    cd.written = self.written()?;
                }
            }
            data.push(cd);
        }
        self.nodes[idx] = Node::Object { class, data };
        Ok(Value::Node(idx))
    }
}

impl Graph {
    /// Decodes a whole stream (not compressed).
    pub fn read(data: &[u8]) -> Result<Graph, SerialError> {
        if data.len() < 4 || data[..2] != [0xAC, 0xED] {
            return err("not a Java serialization stream (no 0xACED magic number)");
        }
        let mut r = Reader {
            data,
            pos: 4,
            nodes: Vec::new(),
            handles: Vec::new(),
            depth: 0,
        };
        let mut top = Vec::new();
        while r.pos < r.data.len() {
            match r.peek()? {
                TC_BLOCKDATA | TC_BLOCKDATALONG | TC_ENDBLOCKDATA => {
                    r.written()?;
                }
                _ => top.push(r.value()?),
            }
        }
        Ok(Graph {
            nodes: r.nodes,
            top,
        })
    }

    pub fn node(&self, idx: usize) -> &Node {
        &self.nodes[idx]
    }

    /// The object a value refers to.
    pub fn obj(&self, v: Value) -> Result<Obj<'_>, SerialError> {
        match v {
            Value::Node(idx) => match &self.nodes[idx] {
                Node::Object { class, data } => {
                    let class = match &self.nodes[*class] {
                        Node::ClassDesc(d) => &*d.name,
                        _ => "",
                    };
                    Ok(Obj {
                        graph: self,
                        class,
                        data,
                    })
                }
                _ => err("a value that is not an object where an object was expected"),
            },
            Value::Null => err("null where an object was expected"),
            _ => err("a primitive where an object was expected"),
        }
    }

    /// The string a value refers to.
    pub fn string(&self, v: Value) -> Result<&str, SerialError> {
        match v {
            Value::Node(idx) => match &self.nodes[idx] {
                Node::String(s) => Ok(s),
                _ => err("a value that is not a string where a string was expected"),
            },
            _ => err("no string where a string was expected"),
        }
    }

    /// The array a value refers to.
    pub fn array(&self, v: Value) -> Result<&Array, SerialError> {
        match v {
            Value::Node(idx) => match &self.nodes[idx] {
                Node::Array { elems, .. } => Ok(elems),
                _ => err("a value that is not an array where an array was expected"),
            },
            _ => err("no array where an array was expected"),
        }
    }
}

/// An object of the graph, read by field name.
#[derive(Clone, Copy)]
pub struct Obj<'g> {
    pub graph: &'g Graph,
    pub class: &'g str,
    data: &'g [ClassData],
}

impl fmt::Debug for Obj<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Obj({})", self.class)
    }
}

/// Reads the bytes and objects a `writeObject` wrote, in order.
pub struct WrittenCursor<'g> {
    items: &'g [Written],
    item: usize,
    byte: usize,
}

impl WrittenCursor<'_> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], SerialError> {
        let mut out = [0u8; N];
        for slot in &mut out {
            loop {
                match self.items.get(self.item) {
                    Some(Written::Bytes(b)) if self.byte < b.len() => {
                        *slot = b[self.byte];
                        self.byte += 1;
                        break;
                    }
                    Some(Written::Bytes(_)) => {
                        self.item += 1;
                        self.byte = 0;
                    }
                    _ => return err("a writeObject's data ends before its primitive values"),
                }
            }
        }
        Ok(out)
    }

    pub fn i32(&mut self) -> Result<i32, SerialError> {
        Ok(i32::from_be_bytes(self.bytes()?))
    }

    pub fn value(&mut self) -> Result<Value, SerialError> {
        while let Some(Written::Bytes(b)) = self.items.get(self.item) {
            if self.byte < b.len() {
                return err("a writeObject's data holds bytes where an object was expected");
            }
            self.item += 1;
            self.byte = 0;
        }
        match self.items.get(self.item) {
            Some(Written::Value(v)) => {
                self.item += 1;
                Ok(*v)
            }
            _ => err("a writeObject's data ends before its objects"),
        }
    }
}

impl<'g> Obj<'g> {
    /// A field's value; the most derived class's field of that name.
    pub fn field(&self, name: &str) -> Result<Value, SerialError> {
        self.data
            .iter()
            .rev()
            .flat_map(|d| d.fields.iter())
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| SerialError(format!("{} has no field {name}", self.class)))
    }

    pub fn obj(&self, name: &str) -> Result<Obj<'g>, SerialError> {
        self.graph
            .obj(self.field(name)?)
            .map_err(|e| SerialError(format!("{}.{name}: {e}", self.class)))
    }

    pub fn int(&self, name: &str) -> Result<i32, SerialError> {
        match self.field(name)? {
            Value::Int(v) => Ok(v),
            _ => err(format!("{}.{name} is not an int", self.class)),
        }
    }

    pub fn bool(&self, name: &str) -> Result<bool, SerialError> {
        match self.field(name)? {
            Value::Bool(v) => Ok(v),
            _ => err(format!("{}.{name} is not a boolean", self.class)),
        }
    }

    pub fn double(&self, name: &str) -> Result<f64, SerialError> {
        match self.field(name)? {
            Value::Double(v) => Ok(v),
            _ => err(format!("{}.{name} is not a double", self.class)),
        }
    }

    /// What the class `class` of this object's hierarchy wrote with its own `writeObject`.
    pub fn written(&self, class: &str) -> Result<WrittenCursor<'g>, SerialError> {
        self.data
            .iter()
            .find(|d| &*d.class == class)
            .map(|d| WrittenCursor {
                items: &d.written,
                item: 0,
                byte: 0,
            })
            .ok_or_else(|| SerialError(format!("{} is not a {class}", self.class)))
    }

    /// The elements of a `java.util.ArrayList` (or `LinkedList`), in order.
    pub fn list(&self) -> Result<Vec<Value>, SerialError> {
        let mut w = match self.class {
            "java.util.ArrayList" => {
                let mut w = self.written("java.util.ArrayList")?;
                w.i32()?; // capacity
                w
            }
            _ => return err(format!("a {} where a list was expected", self.class)),
        };
        let n = self.int("size")?;
        (0..n).map(|_| w.value()).collect()
    }

    /// The entries of a `java.util.HashMap`, in the order they were written (the writer's
    /// iteration order).
    pub fn map_entries(&self) -> Result<Vec<(Value, Value)>, SerialError> {
        if self.class != "java.util.HashMap" && self.class != "java.util.LinkedHashMap" {
            return err(format!("a {} where a hash map was expected", self.class));
        }
        let mut w = self.written("java.util.HashMap")?;
        w.i32()?; // buckets
        let n = w.i32()?;
        (0..n).map(|_| Ok((w.value()?, w.value()?))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_references_and_errors() {
        // A string, then a reference to it.
        let bytes = [
            0xAC,
            0xED,
            0x00,
            0x05,
            TC_STRING,
            0x00,
            0x02,
            b'h',
            b'i',
            TC_REFERENCE,
            0x00,
            0x7E,
            0x00,
            0x00,
        ];
        let g = Graph::read(&bytes).expect("a stream");
        assert_eq!(g.top.len(), 2);
        assert_eq!(g.string(g.top[0]).expect("string"), "hi");
        assert_eq!(g.top[0], g.top[1]);
        assert!(Graph::read(&bytes[..7]).is_err(), "truncated");
        assert!(Graph::read(b"not java").is_err());
        let dangling = [0xAC, 0xED, 0x00, 0x05, TC_REFERENCE, 0x00, 0x7E, 0x00, 0x09];
        assert!(Graph::read(&dangling).is_err());
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        // Arrays of Object nested 100,000 deep: [[[[...]]]].
        let mut bytes = vec![0xAC, 0xED, 0x00, 0x05];
        let desc = [
            TC_CLASSDESC,
            0x00,
            0x13,
            b'[',
            b'L',
            b'j',
            b'a',
            b'v',
            b'a',
            b'.',
            b'l',
            b'a',
            b'n',
            b'g',
            b'.',
            b'O',
            b'b',
            b'j',
            b'e',
            b'c',
            b't',
            b';',
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            SC_SERIALIZABLE,
            0x00,
            0x00,
            TC_ENDBLOCKDATA,
            TC_NULL,
        ];
        for i in 0..100_000 {
            bytes.push(TC_ARRAY);
            if i == 0 {
                bytes.extend_from_slice(&desc);
            } else {
                bytes.extend_from_slice(&[TC_REFERENCE, 0x00, 0x7E, 0x00, 0x00]);
            }
            bytes.extend_from_slice(&1i32.to_be_bytes());
        }
        bytes.push(TC_NULL);
        let e = Graph::read(&bytes).expect_err("too deep");
        assert!(e.0.contains("nested"), "{e}");
    }
}
