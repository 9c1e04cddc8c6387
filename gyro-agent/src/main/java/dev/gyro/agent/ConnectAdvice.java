package dev.gyro.agent;

import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.field.FieldList;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.pool.TypePool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The code Gyro writes at the start of the methods that open the application's JDBC connections, so that each returns
 * Gyro's connection instead and the driver does not connect at all ({@link Takeover}, through the bridge): the database
 * the application's configuration names need not exist. Two kinds of method open connections:
 *
 * <ul>
 *   <li>{@link #DRIVER}: a JDBC driver's {@code java.sql.Connection connect(String url, Properties info)}, which
 *   DriverManager, most pools and some data sources reach ({@code Connection c = Bridge.instead(this, url); if (c !=
 *   null) return c;});</li>
 *   <li>{@link #DATA_SOURCE}: a {@code javax.sql.DataSource}'s {@code getConnection()} and {@code getConnection(String,
 *   String)}, for the drivers' data sources that open their connections without {@code connect} (SQLite's
 *   {@code SQLiteDataSource}, MariaDB's {@code MariaDbDataSource} and {@code MariaDbPoolDataSource}): {@code Connection
 *   c = Bridge.insteadOf(this); if (c != null) return c;}, the URL read from the data source ({@link
 *   Takeover#insteadOf}). A {@code getConnection} that narrows its return type to the driver's own class (SQLite's
 *   {@code getConnection(String, String)}) cannot return Gyro's connection: it refuses to connect instead ({@code
 *   Bridge.narrowed(this)}), with a message that says how the application can call it.</li>
 * </ul>
 *
 * <p>It is written into the methods' bytecode rather than as a ByteBuddy {@code Advice}, because a method that narrows
 * its return type has the interface's method only as a compiler-made bridge to the narrow one (MariaDB's driver's
 * {@code connect} returns {@code org.mariadb.jdbc.Connection}), and ByteBuddy leaves bridge methods out of what its
 * advice reaches; a class visitor sees every method.
 */
final class ConnectAdvice extends AsmVisitorWrapper.AbstractBase {

    private static final String BRIDGE = "dev/gyro/agent/bridge/Bridge";
    private static final String CONNECTION = "Ljava/sql/Connection;";

    /** A driver's {@code connect(String, Properties)}: the bridge is given the driver and the URL. */
    static final ConnectAdvice DRIVER = new ConnectAdvice("connect",
            Map.of("(Ljava/lang/String;Ljava/util/Properties;)" + CONNECTION, 2), "instead",
            "(Ljava/sql/Driver;Ljava/lang/String;)" + CONNECTION, true);

    /** A data source's {@code getConnection()} and {@code getConnection(String, String)}: the bridge is given it. */
    static final ConnectAdvice DATA_SOURCE = new ConnectAdvice("getConnection",
            Map.of("()" + CONNECTION, 0, "(Ljava/lang/String;Ljava/lang/String;)" + CONNECTION, 2), "insteadOf",
            "(Ljava/lang/Object;)" + CONNECTION, false);

    private final String name;
    /** The descriptors taken over, each with its number of arguments. */
    private final Map<String, Integer> descriptors;
    private final String bridgeMethod, bridgeDescriptor;
    /** Whether the bridge is given the method's first argument (the URL) after {@code this}. */
    private final boolean passesUrl;

    private ConnectAdvice(String name, Map<String, Integer> descriptors, String bridgeMethod, String bridgeDescriptor,
                          boolean passesUrl) {
        this.name = name;
        this.descriptors = descriptors;
        this.bridgeMethod = bridgeMethod;
        this.bridgeDescriptor = bridgeDescriptor;
        this.passesUrl = passesUrl;
    }

    @Override
    public int mergeReader(int flags) {
        return flags | ClassReader.EXPAND_FRAMES; // the frame written below is an expanded one
    }

    @Override
    public ClassVisitor wrap(TypeDescription type, ClassVisitor visitor, Implementation.Context context, TypePool pool,
                             FieldList<FieldDescription.InDefinedShape> fields, MethodList<?> methods, int writerFlags,
                             int readerFlags) {
        String owner = type.getInternalName();
        return new ClassVisitor(Opcodes.ASM9, visitor) {
            private boolean frames;

            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                frames = (version & 0xFFFF) >= Opcodes.V1_6; // older class files carry no stack map frames
                super.visit(version, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String method, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, method, descriptor, signature, exceptions);
                if (!name.equals(method) || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_STATIC)) != 0) return mv;
                if (descriptors.containsKey(descriptor)) return insteadAtStart(mv, owner, descriptor, frames);
                if (!passesUrl && Type.getReturnType(descriptor).getSort() == Type.OBJECT)
                    return refusedAtStart(mv); // a data source's getConnection narrowed to the driver's own class
                return mv;
            }
        };
    }

    /** {@code Connection c = Bridge.<bridgeMethod>(this[, url]); if (c != null) return c;} at the method's start. */
    private MethodVisitor insteadAtStart(MethodVisitor mv, String owner, String descriptor, boolean frames) {
        return new MethodVisitor(Opcodes.ASM9, mv) {
            @Override
            public void visitCode() {
                super.visitCode();
                Label connect = new Label();
                super.visitVarInsn(Opcodes.ALOAD, 0);
                if (passesUrl) super.visitVarInsn(Opcodes.ALOAD, 1);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, bridgeMethod, bridgeDescriptor, false);
                super.visitInsn(Opcodes.DUP);
                super.visitJumpInsn(Opcodes.IFNULL, connect);
                super.visitInsn(Opcodes.ARETURN);
                super.visitLabel(connect);
                if (frames)
                    super.visitFrame(Opcodes.F_NEW, 1 + descriptors.get(descriptor), locals(owner, descriptor), 1,
                            new Object[] {"java/sql/Connection"});
                super.visitInsn(Opcodes.POP);
            }

            @Override
            public void visitMaxs(int maxStack, int maxLocals) {
                super.visitMaxs(Math.max(maxStack, 2), Math.max(maxLocals, 1 + descriptors.get(descriptor)));
            }
        };
    }

    /** {@code Bridge.narrowed(this);} at the method's start: it throws where Gyro takes the data source over. */
    private static MethodVisitor refusedAtStart(MethodVisitor mv) {
        return new MethodVisitor(Opcodes.ASM9, mv) {
            @Override
            public void visitCode() {
                super.visitCode();
                super.visitVarInsn(Opcodes.ALOAD, 0);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "narrowed", "(Ljava/lang/Object;)V", false);
            }

            @Override
            public void visitMaxs(int maxStack, int maxLocals) {
                super.visitMaxs(Math.max(maxStack, 1), Math.max(maxLocals, 1));
            }
        };
    }

    /** The frame's locals at the method's start: {@code this} and its arguments (all references here). */
    private static Object[] locals(String owner, String descriptor) {
        List<Object> locals = new ArrayList<>();
        locals.add(owner);
        for (Type t : Type.getArgumentTypes(descriptor)) locals.add(t.getInternalName());
        return locals.toArray();
    }
}
